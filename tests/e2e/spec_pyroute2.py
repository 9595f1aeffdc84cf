#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Both families driven by a generic netlink client we did not write
(pyroute2), with only what the YAML specs describe: tools/spec_genl.py
builds pyroute2's message classes from uapi/ftagent_ctl.yaml and
uapi/ftagent_stats.yaml at run time. Runs in the test guest as root with
the module loaded (hooks=ftrace, standard mode). Prints TAP.

usage: spec_pyroute2.py BUILD_DIR   (BUILD_DIR unused: nothing of ours runs)
"""
import os
import sys
import tempfile
import traceback

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, 'tools'))
from spec_genl import SpecError, SpecFamily  # noqa: E402

# FTAGENT_SPEC_DIR: other copies of the specs (to see that a broken spec
# fails these tests).
SPECS = os.environ.get('FTAGENT_SPEC_DIR', os.path.join(TOP, 'uapi'))
CTL = os.path.join(SPECS, 'ftagent_ctl.yaml')
STATS = os.path.join(SPECS, 'ftagent_stats.yaml')
EINVAL, EBUSY = 22, 16
GENL_ADMIN_PERM = 0x01


def log(msg):
    for line in str(msg).splitlines():
        print('# ' + line, flush=True)


def eq(what, got, want):
    if got != want:
        raise AssertionError('%s: got %r, want %r' % (what, got, want))


def sysfs_version():
    with open('/sys/module/ftagent/version') as f:
        return f.read().strip()


def test_families_resolve_as_specified():
    """The controller's view of each family (version, commands, their
    admin flag, multicast groups) is the spec's."""
    for path in (CTL, STATS):
        fam = SpecFamily(path)
        try:
            info = fam.sock.discovery(fam.name)
            eq(fam.name + ' version', info.get_attr('CTRL_ATTR_VERSION'),
               fam.version)
            if not fam.sock.prid:
                raise AssertionError('%s: no family id' % fam.name)
            kernel = {o.get_attr('CTRL_ATTR_OP_ID'):
                      o.get_attr('CTRL_ATTR_OP_FLAGS') & GENL_ADMIN_PERM
                      for o in info.get_attr('CTRL_ATTR_OPS', [])}
            spec = {op['value']: GENL_ADMIN_PERM if 'admin-perm' in
                    op.get('flags', []) else 0
                    for op in fam.ops.values() if 'do' in op or 'dump' in op}
            eq(fam.name + ' commands and admin-perm', kernel, spec)
            groups = [g['name'] for g in
                      fam.spec.get('mcast-groups', {}).get('list', [])]
            eq(fam.name + ' multicast groups', sorted(fam.sock.mcast_groups),
               sorted(groups))
        finally:
            fam.close()


def test_get_status():
    ctl = SpecFamily(CTL)
    try:
        (reply,) = ctl.do('get-status')
        eq('module-version', reply.get_attr('module-version'), sysfs_version())
        eq('state', reply.get_attr('state'), ctl.enum('state')['tracing'])
        eq('mode', reply.get_attr('mode'), ctl.enum('mode')['standard'])
        eq('hooks', reply.get_attr('hooks'), ctl.enum('hook-set')['ftrace'])
        eq('degraded', reply.get_attr('degraded'), 0)
        # The stats family says the same, and its version answers too.
        stats = SpecFamily(STATS)
        (version,) = stats.do('get-version')
        stats.close()
        for name in ('abi-major', 'abi-minor', 'module-version'):
            eq(name, version.get_attr(name), reply.get_attr(name))
    finally:
        ctl.close()


def idle_acked(ctl, stats):
    """Leave the idle generation acknowledged, so that what is counted
    from here on lands in the active one and the next flush swaps it."""
    try:
        (r,) = ctl.do('flush')
        gen = r.get_attr('gen-seq')
    except SpecError as e:
        if e.code != EBUSY:
            raise
        # The idle one is unacknowledged: read its number, acknowledge it.
        gen = stats.dump('dump-counters')[0].get_attr('gen-seq')
    ctl.do('ack-generation', [('gen-seq', gen)])


def test_counter_dump_has_our_write():
    """Write a known number of bytes to a file; flush; the dumped idle
    generation holds exactly them, decoded with the spec's struct."""
    ctl, stats = SpecFamily(CTL), SpecFamily(STATS)
    size = 123457
    (status,) = ctl.do('get-status')
    interval = status.get_attr('flush-interval-ms')
    try:
        # Flush only on request, so the generation is ours to swap.
        ctl.do('set-config', [('flush-interval-ms', 0)])
        idle_acked(ctl, stats)
        with tempfile.NamedTemporaryFile(dir='/tmp') as f:
            os.write(f.fileno(), b'x' * size)
            ino = os.fstat(f.fileno()).st_ino
            (r,) = ctl.do('flush')
            gen = r.get_attr('gen-seq')
        msgs = stats.dump('dump-counters')
        if not msgs:
            raise AssertionError('empty dump')
        written = calls = 0
        file_kind = stats.enum('obj-kind')['file']
        want_size = stats.struct_size('ftagent-counter')
        for m in msgs:
            eq('gen-seq of every message', m.get_attr('gen-seq'), gen)
            for raw in m.get_attrs('counter'):
                if len(raw) < want_size:
                    raise AssertionError('counter of %d bytes' % len(raw))
                c = stats.struct_decode('ftagent-counter', raw)
                if (c['tgid'], c['kind'], c['ino']) == (os.getpid(), file_kind, ino):
                    written += c['out.bytes']
                    calls += c['out.calls']
        eq('bytes written to the file', written, size)
        eq('write calls', calls, 1)
        ctl.do('ack-generation', [('gen-seq', gen)])
    finally:
        ctl.do('set-config', [('flush-interval-ms', interval)])
        ctl.close()
        stats.close()


def test_malformed_request_is_refused_with_reason():
    """An attribute on a command that takes none: EINVAL, the module's
    extended-ACK message, and the offset of the attribute (right after
    the netlink and genetlink headers, 16 + 4)."""
    for path, op, attr in ((CTL, 'get-status', ('state', 1)),
                           (STATS, 'get-version', ('module-version', 'x'))):
        fam = SpecFamily(path)
        try:
            fam.do(op, [attr])
        except SpecError as e:
            eq(op + ' errno', e.code, EINVAL)
            eq(op + ' message', e.msg, 'this command takes no attributes')
            eq(op + ' offset', e.offset, 20)
        else:
            raise AssertionError('%s with %s was accepted' % (op, attr[0]))
        finally:
            fam.close()


TESTS = [
    test_families_resolve_as_specified,
    test_get_status,
    test_counter_dump_has_our_write,
    test_malformed_request_is_refused_with_reason,
]


def main():
    print('1..%d' % len(TESTS), flush=True)
    failed = 0
    for i, t in enumerate(TESTS, 1):
        try:
            t()
            print('ok %d - %s' % (i, t.__name__), flush=True)
        except Exception:
            failed += 1
            log(traceback.format_exc())
            print('not ok %d - %s' % (i, t.__name__), flush=True)
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
