# Copyright 2026 The preemptible_sched developers
#
#    Licensed under the Apache License, Version 2.0 (the "License"); you may
#    not use this file except in compliance with the License. You may obtain
#    a copy of the License at
#
#         http://www.apache.org/licenses/LICENSE-2.0
#
#    Unless required by applicable law or agreed to in writing, software
#    distributed under the License is distributed on an "AS IS" BASIS, WITHOUT
#    WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied. See the
#    License for the specific language governing permissions and limitations
#    under the License.

"""Base test case: config fixture, and helpers to build hosts and instances."""

import os
import socket

from oslo_config import fixture as config_fixture
from oslotest import base

from preemptible_sched.conf import CONF
from preemptible_sched.conf import plugins
from preemptible_sched.hosts import state as host_state
from preemptible_sched import objects

MEDIUM = objects.Resources(2, 4000, 40)


class TestCase(base.BaseTestCase):
    """Every test gets a clean copy of the configuration."""

    def setUp(self):
        super().setUp()
        plugins.register_opts(CONF)
        self.config_fixture = self.useFixture(config_fixture.Config(CONF))

    def flags(self, group=None, **kw):
        """Override options of ``group`` for the duration of the test."""
        for name, value in kw.items():
            self.config_fixture.config(group=group, **{name: value})


class FakePlanner:
    """A planner for host states in plugin tests: returns canned plans."""

    def __init__(self, plans=None):
        self.plans = plans or {}

    def plan(self, state, resources, now, cost=None):
        return self.plans.get(state.name)


class RefusingPlanner(FakePlanner):
    """A planner that must not be asked (the request fits already)."""

    def plan(self, state, resources, now, cost=None):
        raise AssertionError('planner asked about %s' % state.name)


def make_host_state(name='host', vcpus=8, memory_mb=16384, disk_gb=500,
                    instances=(), planner=None, **host_kw):
    """A :class:`HostState` of a blade with ``instances`` consumed."""
    state = host_state.HostState(
        objects.Host(name=name, vcpus=vcpus, memory_mb=memory_mb,
                     disk_gb=disk_gb, **host_kw),
        planner=planner or FakePlanner())
    for instance in instances:
        state.consume(instance)
    return state


def make_instance(instance_id, resources=MEDIUM, preemptible=False, **kw):
    return objects.Instance(id=instance_id,
                            resources=objects.Resources(*resources),
                            preemptible=preemptible, **kw)


def make_spec(resources=MEDIUM, preemptible=False, spec_id='req', **kw):
    return objects.RequestSpec(id=spec_id,
                               resources=objects.Resources(*resources),
                               preemptible=preemptible, **kw)


def tree_bytes(directory):
    """``{path relative to directory: bytes}`` of every file below it."""
    found = {}
    for root, _dirs, names in os.walk(directory):
        for name in names:
            path = os.path.join(root, name)
            with open(path, 'rb') as stream:
                found[os.path.relpath(path, directory)] = stream.read()
    return found


def closed_port():
    """A local TCP port nothing listens on."""
    sock = socket.socket()
    sock.bind(('127.0.0.1', 0))
    port = sock.getsockname()[1]
    sock.close()
    return port
