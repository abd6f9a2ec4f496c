"""preemptible_sched: preemptible instances and QoS classes for clouds."""
