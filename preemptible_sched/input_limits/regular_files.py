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

"""Reading untrusted regular files within the bounds of
:mod:`preemptible_sched.input_limits`.

Only regular files are read: FIFOs, devices, sockets and directories are
refused before anything is read, and opening never blocks (a FIFO with no
writer). A file larger than the limit is refused, so is text that is not
UTF-8; every refusal is an
:class:`~preemptible_sched.exception.InvalidInput` naming the file.
"""

import os
import stat

from preemptible_sched import exception
from preemptible_sched import input_limits as limits


def open_regular(path, source_name=None):
    """``path`` opened for reading in binary, if it is a regular file.

    FIFOs, devices, sockets and directories are refused with InvalidInput
    before anything is read, and opening never blocks (a FIFO with no
    writer). The caller closes the file (``with``).
    """
    source = path if source_name is None else source_name
    flags = os.O_RDONLY | getattr(os, 'O_NONBLOCK', 0) | getattr(
        os, 'O_CLOEXEC', 0)
    try:
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode):
            raise exception.InvalidInput(
                source, None, 'not a regular file (%s)' % _kind(info))
        fd = os.open(path, flags)
    except (OSError, ValueError, TypeError) as error:
        raise exception.InvalidInput(source, None, 'cannot read file: %s' % (
            getattr(error, 'strerror', None) or error))
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise exception.InvalidInput(
                source, None, 'not a regular file (%s)' % _kind(info))
        # Back to blocking reads: a regular file never blocks anyway.
        os.set_blocking(fd, True)
        return os.fdopen(fd, 'rb')
    except BaseException:
        os.close(fd)
        raise


def read_bounded_bytes(path, source_name=None,
                       max_bytes=limits.MAX_INPUT_BYTES):
    """The bytes of the regular file at ``path``, at most ``max_bytes``.

    FIFOs, devices, sockets and directories are refused before anything
    is read (opening never blocks), so is a file larger than
    ``max_bytes``; ``source_name`` (default ``path``) names the file in
    the error.
    """
    source = path if source_name is None else source_name
    with open_regular(path, source) as stream:
        try:
            size = os.fstat(stream.fileno()).st_size
            if size > max_bytes:
                raise exception.InvalidInput(
                    source, None, 'file too large: %d bytes (limit %d)' % (
                        size, max_bytes))
            data = stream.read(max_bytes + 1)
        except OSError as error:
            raise exception.InvalidInput(
                source, None, 'cannot read file: %s' % (error.strerror or
                                                        error))
    if len(data) > max_bytes:
        raise exception.InvalidInput(
            source, None, 'file too large: more than %d bytes' % max_bytes)
    return data


def _kind(info):
    mode = info.st_mode
    for test, name in ((stat.S_ISDIR, 'a directory'),
                       (stat.S_ISFIFO, 'a FIFO'),
                       (stat.S_ISCHR, 'a character device'),
                       (stat.S_ISBLK, 'a block device'),
                       (stat.S_ISSOCK, 'a socket')):
        if test(mode):
            return name
    return 'not a plain file'


def decode_text(data, source):
    """``data`` (bytes) decoded as UTF-8 (a leading BOM is dropped)."""
    try:
        return data.decode('utf-8-sig')
    except UnicodeDecodeError as error:
        line = data.count(b'\n', 0, error.start) + 1
        raise exception.InvalidInput(
            source, 'line %d' % line, 'not UTF-8 text: byte 0x%02x at '
            'offset %d' % (data[error.start], error.start))


def read_bounded_text(path, source_name=None,
                      max_bytes=limits.MAX_INPUT_BYTES):
    """The text of the regular UTF-8 file at ``path`` (see above)."""
    source = path if source_name is None else source_name
    return decode_text(read_bounded_bytes(path, source, max_bytes), source)
