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

"""Configuration files that are not files: refused before oslo.config
reads them (a FIFO would hang it, ``/dev/zero`` fill the memory)."""

import os
import threading

import fixtures
from oslo_config import cfg

from preemptible_sched.conf import config_files
from preemptible_sched.conf import parsing
from tests import base


class TestSpecialFiles(base.TestCase):

    def setUp(self):
        super().setUp()
        self.tmp = self.useFixture(fixtures.TempDir()).path
        self.conf = parsing.ConfigOpts()
        self.addCleanup(self.conf.reset)

    def path(self, name):
        return os.path.join(self.tmp, name)

    def parse(self, *argv):
        """``self.conf(argv)`` in a thread: a hang fails the test."""
        outcome = []

        def run():
            try:
                self.conf(list(argv), project='preemptible-sched',
                          default_config_files=[], default_config_dirs=[])
                outcome.append(None)
            except Exception as error:  # noqa: B902 - the test reads it
                outcome.append(error)

        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        thread.join(30)
        if thread.is_alive():
            # Let the reader go: open the FIFO for writing, then close it.
            for name in os.listdir(self.tmp):
                if name.startswith('fifo'):
                    os.close(os.open(self.path(name),
                                     os.O_WRONLY | os.O_NONBLOCK))
            self.fail('parsing %s hung' % (argv,))
        return outcome[0]

    def assertRefused(self, fragments, *argv):
        error = self.parse(*argv)
        self.assertIsInstance(error, cfg.ConfigFileParseError)
        self.assertEqual(1, len(str(error).splitlines()), error)
        for fragment in fragments:
            self.assertIn(fragment, str(error))

    def test_fifo(self):
        os.mkfifo(self.path('fifo.conf'))
        self.assertRefused([self.path('fifo.conf'), 'not a regular file',
                            'a FIFO'], '--config-file', self.path('fifo.conf'))

    def test_fifo_in_a_config_dir(self):
        os.mkdir(self.path('conf.d'))
        os.mkfifo(self.path('conf.d/fifo.conf'))
        self.assertRefused([self.path('conf.d/fifo.conf'), 'a FIFO'],
                           '--config-dir', self.path('conf.d'))

    def test_dev_zero(self):
        self.assertRefused(['/dev/zero', 'a character device'],
                           '--config-file', '/dev/zero')

    def test_directory(self):
        self.assertRefused([self.tmp, 'a directory'],
                           '--config-file=%s' % self.tmp)

    def test_symlink_loop(self):
        os.symlink(self.path('b.conf'), self.path('a.conf'))
        os.symlink(self.path('a.conf'), self.path('b.conf'))
        self.assertRefused([self.path('a.conf'), 'symbolic links'],
                           '--config-file', self.path('a.conf'))

    def test_too_large(self):
        with open(self.path('big.conf'), 'wb') as stream:
            stream.truncate(config_files.MAX_CONFIG_BYTES + 1)
        self.assertRefused([self.path('big.conf'), 'file too large'],
                           '--config-file', self.path('big.conf'))

    def test_a_regular_file_is_read(self):
        with open(self.path('ok.conf'), 'w') as stream:
            stream.write('[DEFAULT]\ncolour = blue\n')
        self.conf.register_opt(cfg.StrOpt('colour'))
        self.assertIsNone(self.parse('--config-file', self.path('ok.conf')))
        self.assertEqual('blue', self.conf.colour)

    def test_nova_files_skips_special_files(self):
        os.mkfifo(self.path('fifo.conf'))
        self.assertEqual([], config_files.nova_files(
            ['--config-file', self.path('fifo.conf'),
             '--config-file', '/dev/zero']))
        self.assertIsNone(config_files.parse_file(self.path('fifo.conf')))


class TestLoggingFiles(base.TestCase):

    def test_log_config_append_that_cannot_be_read(self):
        # /proc/self/mem is a "regular" file that cannot be read: oslo.log
        # raised LogConfigError, a traceback (found by the fuzz campaign).
        tmp = self.useFixture(fixtures.TempDir()).path
        os.mkfifo(os.path.join(tmp, 'fifo.ini'))
        for path, reason in (('/proc/self/mem', 'cannot read file'),
                             ('/dev/zero', 'a character device'),
                             (os.path.join(tmp, 'fifo.ini'), 'a FIFO'),
                             ('/nonexistent.ini', 'no readable file')):
            conf = parsing.ConfigOpts()
            self.addCleanup(conf.reset)
            conf.register_opt(cfg.StrOpt('log_config_append'))
            conf.set_override('log_config_append', path)
            problems = parsing.logging_problems(conf)
            self.assertEqual(1, len(problems), problems)
            self.assertIn('log_config_append', problems[0])
            self.assertIn(reason, problems[0])


class TestCommandLineOptions(base.TestCase):
    """The values of the options of the command line are checked with the
    others once the files are parsed, not by oslo.config as it parses
    (which writes "argument --x: Invalid ..." and exits).
    """

    def setUp(self):
        super().setUp()
        self.tmp = self.useFixture(fixtures.TempDir()).path
        self.conf = parsing.ConfigOpts()
        self.addCleanup(self.conf.reset)

    def parse(self, text, *argv):
        path = os.path.join(self.tmp, 'test.conf')
        with open(path, 'w') as stream:
            stream.write(text)
        self.conf(['--config-file', path] + list(argv),
                  default_config_files=[], default_config_dirs=[])
        return path

    def test_every_bad_one_at_once_and_alone(self):
        self.conf.register_cli_opts([cfg.BoolOpt('flag'),
                                     cfg.IntOpt('count')])
        self.conf.register_opt(cfg.IntOpt('other'))
        error = self.assertRaises(parsing.BadValues, self.parse,
                                  '[DEFAULT]\nflag = maybe\ncount = x\n'
                                  'other = y\n')
        path = os.path.join(self.tmp, 'test.conf')
        self.assertEqual(
            [path + ": [DEFAULT] count: invalid literal for int() with base "
             "10: 'x'",
             path + ": [DEFAULT] flag: Unexpected boolean value 'maybe'"],
            error.problems)

    def test_deprecated_name_with_an_unknown_reference(self):
        self.conf.register_cli_opt(cfg.StrOpt(
            'place', deprecated_name='spot'))
        error = self.assertRaises(parsing.BadValues, self.parse,
                                  '[DEFAULT]\nspot = $nowhere/x\n')
        self.assertEqual([os.path.join(self.tmp, 'test.conf') +
                          ': [DEFAULT] place: $nowhere refers to no option '
                          '(write $$ for a literal $)'], error.problems)

    def test_required_one_with_an_unknown_reference(self):
        # oslo.config reads the required options last, and lets the error
        # out as it is.
        self.conf.register_cli_opt(cfg.StrOpt('host', required=True))
        error = self.assertRaises(parsing.BadValues, self.parse,
                                  '[DEFAULT]\n', '--host', '$nothing')
        self.assertEqual(['[DEFAULT] host: $nothing refers to no option '
                          '(write $$ for a literal $)'], error.problems)

    def test_a_missing_required_one_is_still_an_error(self):
        self.conf.register_cli_opt(cfg.StrOpt('host', required=True))
        self.assertRaises(cfg.RequiredOptError, self.parse, '[DEFAULT]\n')


class TestRegistered(base.TestCase):

    def test_follows_registration(self):
        conf = parsing.ConfigOpts()
        group = cfg.OptGroup('shared_group_for_test')
        opt = cfg.StrOpt('colour')
        other = parsing.ConfigOpts()
        for each in (other, conf):
            each.register_group(group)
            each.register_opt(opt, group)
        conf.register_cli_opt(cfg.BoolOpt('flag'))
        self.assertIn(('shared_group_for_test', opt),
                      parsing.registered(conf))
        self.assertIn('flag', [opt.dest for group, opt
                               in parsing.registered(conf)])
        conf.unregister_opt(opt, group)
        self.assertNotIn(('shared_group_for_test', opt),
                         parsing.registered(conf))
