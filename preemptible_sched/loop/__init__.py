"""The scheduler loop: pending queue, passes, and safe execution.

``scheduler_loop`` holds the queue and reacts to events; ``executor``
carries out each decision (journal, notice, terminate, spawn) so that a
crash at any step can be completed or rolled back; ``timing`` measures the
stages of every pass.
"""
