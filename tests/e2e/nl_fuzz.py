#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""A spec-driven fuzzer for both generic netlink families.

Reads uapi/ftagent_ctl.yaml and uapi/ftagent_stats.yaml and, for every
command of every family, sends valid and malformed requests over raw
NETLINK_GENERIC sockets built here with struct (pyroute2's encoder will
not send a malformed attribute): wrong lengths and types, truncation,
bad nesting, out-of-range values, missing and unknown attributes, bad
header bits, dumps of do-only commands and the reverse, unknown commands,
oversized messages, and several senders at once.

After every rejected message: the kernel answered (socket timeout), with
a negative errno and an extended-ACK message (exemptions below), and the
module's state is what it was (snapshots of every GET and dump, batched
per --batch messages, one message at a time again when a batch fails).
Then everything again as uid 65534 with no capabilities: EPERM on every
command but the public one, and nothing changes.

Runs in the test guest as root with the module loaded (guest-run --e2e).
Prints TAP: one result per family x command as root, one per command
unprivileged, unknown commands per family, and the concurrent senders.

usage: nl_fuzz.py [BUILD_DIR] [--seed S] [--per-command N] [--batch N]
                  [--only FAMILY:COMMAND] [--no-unpriv] [--part K/N]
                  [--verbose]
  NLFUZZ_SEED, NLFUZZ_PER_COMMAND and NLFUZZ_PART set the defaults (make
  nl-fuzz). --part K/N runs the K-th of N parts of the results, so that N
  guests share a long run; every command has its own random stream, so a
  part sends exactly the messages it sends in the whole run.
  A failure prints the seed, the command and the message in hex; the same
  --seed (with the same --per-command) sends the same messages again.
"""
import argparse
import errno
import json
import os
import random
import socket
import struct
import sys
import threading
import time
import traceback

import yaml

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SPECS = os.environ.get('FTAGENT_SPEC_DIR', os.path.join(TOP, 'uapi'))
SPEC_FILES = [os.path.join(SPECS, 'ftagent_ctl.yaml'),
              os.path.join(SPECS, 'ftagent_stats.yaml')]

NETLINK_GENERIC = 16
SOL_NETLINK = 270
NETLINK_CAP_ACK, NETLINK_EXT_ACK = 10, 11
NLMSG_ERROR, NLMSG_DONE = 2, 3
NLM_F_REQUEST, NLM_F_MULTI, NLM_F_ACK, NLM_F_ECHO = 0x1, 0x2, 0x4, 0x8
NLM_F_DUMP = 0x300
NLM_F_ACK_TLVS = 0x200
NLA_F_NESTED = 0x8000
NLMSGERR_ATTR_MSG, NLMSGERR_ATTR_OFFS, NLMSGERR_ATTR_MISS_TYPE = 1, 2, 5
GENL_ID_CTRL, CTRL_CMD_GETFAMILY = 0x10, 3
CTRL_ATTR_FAMILY_ID, CTRL_ATTR_FAMILY_NAME = 1, 2
SCALAR_SIZE = {'u8': 1, 'u16': 2, 'u32': 4, 'u64': 8,
               's8': 1, 's16': 2, 's32': 4, 's64': 8}
SCALAR_FMT = {'u8': 'B', 'u16': 'H', 'u32': 'I', 'u64': 'Q',
              's8': 'b', 's16': 'h', 's32': 'i', 's64': 'q'}
TIMEOUT = 10.0          # seconds without an answer: the kernel hung
SNDBUF = 4 << 20
BIG = 70000             # bytes: over 64 KiB, under the unprivileged sndbuf

# Rejections that legitimately come without an extended-ACK message,
# keyed by how the message was malformed. All three are refused by the
# genetlink core before the module sees the message, and 6.1's core
# sets no message for them (net/netlink/genetlink.c,
# genl_family_rcv_msg(): "nlmsg_len < nlmsg_msg_size(hdrlen)" returns
# -EINVAL, genl_get_cmd() failing returns -EOPNOTSUPP, and a do on a
# dump-only op or the reverse returns -EOPNOTSUPP from
# genl_family_rcv_msg_{doit,dumpit}()). GENL_ADMIN_PERM's own EPERM
# (unprivileged callers) has no message either; that one is exempted in
# check_answer(), for the unprivileged run only. Nothing the module
# itself returns is exempt.
CORE_SILENT = {('short-header', errno.EINVAL),
               ('unknown-command', errno.EOPNOTSUPP),
               ('wrong-kind', errno.EOPNOTSUPP)}
# Malformed attributes and out-of-range values are EINVAL, with a message
# (docs/netlink.md, "Errors"); the header checks answer EINVAL too.
MUST_EINVAL = {'wrong-length', 'nest-for-scalar', 'scalar-for-nest',
               'nest-garbage', 'unknown-attr', 'foreign-attr',
               'out-of-range', 'truncated', 'bad-nla-len', 'oversized',
               'repeated-then-bad', 'reserved', 'bad-flags',
               'short-header', 'string-tail'}

# Snapshot fields that move on their own, so they are left out of the
# before/after comparison: counters of calls the system makes whatever
# we send (rule hits, the default's hits, budget usage, refusals and
# alerts, a budget's window, every per-CPU figure, hook hits and misses,
# exclusion misses), and the exclusion set's size (it follows processes
# as they fork and exit). The idle generation (gen-seq, gen-acked) and
# the flush count move on their own only while the flush timer runs, so
# they are compared when flush-interval-ms is 0, which the fuzzer sets
# for its run (and puts back after).
VOLATILE = {
    ('ftagent_ctl', 'get-policy'): {'policy-default-hits', 'hits'},
    ('ftagent_ctl', 'get-budgets'): {'used', 'window-left-ms', 'denied',
                                     'alerts'},
    ('ftagent_stats', 'get-resources'): {'cpu', 'hits', 'missed',
                                         'excluded-tgids', 'exclude-missed'},
}
TIMER_MOVED = {'flush-count', 'gen-seq', 'gen-acked'}
# A hook goes from attached (1) to verified (2) the first time it fires,
# on its own: both count as attached.
HOOK_STATES = {b'\x02\x00\x00\x00': b'\x01\x00\x00\x00'}


def ename(e):
    return 'EOPNOTSUPP' if e == errno.EOPNOTSUPP else \
        errno.errorcode.get(e, str(e))


def log(msg):
    for line in str(msg).splitlines():
        print('# ' + line, flush=True)


def align4(n):
    return (n + 3) & ~3


# ---------------------------------------------------------------- the spec

class Spec:
    """What the fuzzer needs of one genetlink-legacy spec."""

    def __init__(self, path):
        with open(path) as f:
            d = yaml.safe_load(f)
        self.name = d['name']
        self.version = d.get('version', 1)
        self.enums = {}
        for de in d.get('definitions', []):
            if de['type'] in ('enum', 'flags'):
                start = de.get('value-start', 0)
                names = [e if isinstance(e, str) else e['name']
                         for e in de['entries']]
                self.enums[de['name']] = list(range(start, start + len(names)))
        self.sets = {}
        for s in d['attribute-sets']:
            attrs = {}
            if 'subset-of' in s:
                base = self.sets[s['subset-of']]
                for a in s['attributes']:
                    attrs[a['name']] = dict(base['attrs'][a['name']], **a)
            else:
                value = 1
                for a in s['attributes']:
                    value = a.get('value', value)
                    attrs[a['name']] = dict(a, value=value)
                    value += 1
            self.sets[s['name']] = {
                'attrs': attrs,
                'max': max(a['value'] for a in attrs.values()),
            }
        for s in d['attribute-sets']:
            if 'subset-of' in s:
                self.sets[s['name']]['max'] = self.sets[s['subset-of']]['max']
        self.ops = []
        value = 1
        for op in d['operations']['list']:
            value = op.get('value', value)
            self.ops.append(dict(op, value=value))
            value += 1
        self.request_ops = [op for op in self.ops if 'do' in op or 'dump' in op]

    def request_attrs(self, op):
        kind = 'do' if 'do' in op else 'dump'
        return (op[kind].get('request') or {}).get('attributes', [])

    def public(self, op):
        return 'admin-perm' not in op.get('flags', [])

    def attr_by_value(self, set_name, value):
        for a in self.sets[set_name]['attrs'].values():
            if a['value'] == value:
                return a
        return None


# ------------------------------------------------------- attribute trees

class Attr:
    """One attribute: raw payload, or children when it is a nest."""

    def __init__(self, atype, data=b'', children=None, nested=None,
                 spec=None):
        self.type = atype
        self.data = data
        self.children = children
        self.nested = children is not None if nested is None else nested
        self.spec = spec        # the spec's attribute, or None for junk

    def encode(self):
        body = self.data if self.children is None else \
            b''.join(c.encode() for c in self.children)
        t = self.type | (NLA_F_NESTED if self.nested else 0)
        raw = struct.pack('=HH', 4 + len(body), t) + body
        return raw + b'\0' * (align4(len(raw)) - len(raw))

    def walk(self):
        yield self
        for c in self.children or []:
            yield from c.walk()


def random_string(rng, a):
    n = rng.choice([1, 1, 2, 5, 8, 15, 20, 63])
    s = ''.join(rng.choice('abcdefghijklmnopqrstuvwxyz0123456789_-.')
                for _ in range(n))
    if 'prefix' in a['name'] or 'path' in a['name']:
        s = '/' + s
    return s.encode() + b'\0'


def valid_scalar(rng, spec, a):
    t = a['type']
    bits = SCALAR_SIZE[t] * 8
    if 'enum' in a:
        values = spec.enums[a['enum']]
        if a.get('enum-as-flags'):
            v = 0
            for e in values:
                if rng.random() < 0.4:
                    v |= 1 << e
            v = v or 1 << rng.choice(values)
        else:
            v = rng.choice(values)
    else:
        checks = a.get('checks', {})
        lo, hi = checks.get('min', 0), checks.get('max', (1 << bits) - 1)
        v = rng.choice([lo, hi, rng.randint(lo, hi),
                        rng.randint(lo, min(hi, 255))])
        if bits == 8 and not checks and rng.random() < 0.7:
            v = rng.randint(0, 1)       # a u8 is most often a toggle
    return struct.pack('=' + SCALAR_FMT[t], v)


def valid_attr(rng, spec, a, depth=0):
    """A value of the spec's type for @a (semantics may still refuse it)."""
    t = a['type']
    if t in SCALAR_SIZE:
        return Attr(a['value'], valid_scalar(rng, spec, a), spec=a)
    if t == 'string':
        return Attr(a['value'], random_string(rng, a), spec=a)
    if t == 'binary':
        return Attr(a['value'], bytes(rng.getrandbits(8) for _ in
                                      range(rng.choice([4, 16]))), spec=a)
    if t == 'flag':
        return Attr(a['value'], b'', spec=a)
    if t == 'nest':
        inner = spec.sets[a['nested-attributes']]['attrs']
        return Attr(a['value'], children=valid_attrs(
            rng, spec, [n for n in inner], a['nested-attributes'], depth + 1),
            spec=a)
    if t == 'indexed-array':
        sub = {'type': a['sub-type'], 'value': 0, 'name': a['name']}
        return Attr(a['value'], children=[
            Attr(i + 1, valid_scalar(rng, spec, sub)) for i in
            range(rng.randint(0, 4))], spec=a)
    return None                                 # pad, unused


def valid_attrs(rng, spec, names, set_name, depth=0):
    attrs = spec.sets[set_name]['attrs']
    out = []
    for name in names:
        a = attrs[name]
        if a['type'] in ('pad', 'unused'):
            continue
        if depth and rng.random() < 0.3:
            continue                # nested sets: any subset
        if not depth and rng.random() < 0.25:
            continue
        count = rng.choice([1, 1, 2, 3]) if a.get('multi-attr') else 1
        for _ in range(count):
            v = valid_attr(rng, spec, a, depth)
            if v is not None:
                out.append(v)
    return out


# -------------------------------------------------------------- messages

class Msg:
    """A request as the fuzzer means it, and what it must get back."""

    def __init__(self, cmd, attrs, dump, kind, must_reject):
        self.cmd = cmd
        self.attrs = attrs
        self.dump = dump
        self.kind = kind
        self.must_reject = must_reject
        self.flags_extra = 0
        self.reserved = 0
        self.raw_attrs = None       # bytes, when mutated after encoding
        self.cut = None             # nlmsg_len to keep, from the start
        self.repeat = 1             # the attributes, this many times
        self.tail = b''             # then these bytes
        self.core_erange = False    # the core answers ERANGE, not EINVAL

    def body(self):
        if self.raw_attrs is not None:
            return self.raw_attrs
        return b''.join(a.encode() for a in self.attrs) * self.repeat + \
            self.tail

    def encode(self, family_id, seq, version):
        body = self.body()
        flags = NLM_F_REQUEST | (NLM_F_DUMP if self.dump else NLM_F_ACK)
        flags |= self.flags_extra
        payload = struct.pack('=BBH', self.cmd, version, self.reserved) + body
        raw = struct.pack('=IHHII', 16 + len(payload), family_id, flags,
                          seq, 0) + payload
        if self.cut is not None:
            raw = struct.pack('=I', self.cut) + raw[4:self.cut]
        return raw


def scalar_attrs(msg):
    return [x for a in msg.attrs for x in a.walk()
            if x.spec and x.spec['type'] in SCALAR_SIZE]


def nest_attrs(msg):
    return [x for a in msg.attrs for x in a.walk()
            if x.spec and x.spec['type'] in ('nest', 'indexed-array')]


def all_specced(msg):
    return [x for a in msg.attrs for x in a.walk() if x.spec]


class Generator:
    """Valid and malformed requests for one command, from one PRNG."""

    def __init__(self, spec, op, rng):
        self.spec = spec
        self.op = op
        self.rng = rng
        self.set = op.get('attribute-set')
        self.names = spec.request_attrs(op)
        self.dump = 'dump' in op and 'do' not in op

    def valid(self):
        names = self.names
        if not names and self.rng.random() < 0.5:
            return Msg(self.op['value'], [], self.dump, 'valid', False)
        return Msg(self.op['value'],
                   valid_attrs(self.rng, self.spec, names, self.set),
                   self.dump, 'valid', False)

    def base(self):
        """A valid request with at least one attribute to break."""
        m = self.valid()
        if not m.attrs:
            # Commands that take none: any attribute of the set is foreign.
            m.attrs = [self.any_attr()]
        return m

    def any_attr(self):
        cands = [a for a in self.spec.sets[self.set]['attrs'].values()
                 if a['type'] not in ('pad', 'unused')]
        return valid_attr(self.rng, self.spec, self.rng.choice(cands))

    def mutate(self):
        rng = self.rng
        kinds = ['wrong-length', 'nest-for-scalar', 'scalar-for-nest',
                 'nest-garbage', 'unknown-attr', 'foreign-attr',
                 'out-of-range', 'truncated', 'bad-nla-len', 'missing',
                 'string-tail',
                 'reserved', 'bad-flags', 'short-header', 'wrong-kind']
        # The three kinds past 64 KiB cost most (to build, copy and
        # parse under TCG): one message in twelve, between them.
        big = ['oversized', 'repeated', 'repeated-then-bad']
        for _ in range(20):
            kind = rng.choice(big if rng.random() < 1 / 12 else kinds)
            m = getattr(self, 'm_' + kind.replace('-', '_'))()
            if m is not None:
                m.kind = kind
                return m
        m = self.m_unknown_attr()
        m.kind = 'unknown-attr'
        return m

    def m_wrong_length(self):
        m = self.base()
        cands = scalar_attrs(m)
        if not cands:
            return None
        a = self.rng.choice(cands)
        size = SCALAR_SIZE[a.spec['type']]
        n = self.rng.choice([x for x in range(0, 10) if x != size])
        a.data = bytes(self.rng.getrandbits(8) for _ in range(n))
        m.must_reject = True
        return m

    def m_nest_for_scalar(self):
        m = self.base()
        cands = [a for a in all_specced(m)
                 if a.spec['type'] not in ('nest', 'indexed-array')]
        if not cands:
            return None
        a = self.rng.choice(cands)
        a.children = [Attr(1, a.data[:4].ljust(4, b'\0'))]
        a.nested = True
        m.must_reject = True
        return m

    def m_scalar_for_nest(self):
        m = self.base()
        cands = nest_attrs(m)
        if not cands:
            return None
        a = self.rng.choice(cands)
        a.children = None
        a.nested = False
        a.data = struct.pack('=I', self.rng.getrandbits(32))
        m.must_reject = True
        return m

    def m_nest_garbage(self):
        """A nest of bytes no attribute parse can take: its first nla_len
        is below 4 or past the nest's end."""
        m = self.base()
        cands = nest_attrs(m)
        if not cands:
            return None
        a = self.rng.choice(cands)
        n = self.rng.randint(1, 64)
        junk = bytearray(self.rng.getrandbits(8) for _ in range(n))
        if n >= 2:
            bad = self.rng.choice([self.rng.randint(0, 3),
                                   self.rng.randint(n + 1, 0xffff)])
            junk[0:2] = struct.pack('=H', bad)
        a.children = None
        a.nested = True
        a.data = bytes(junk)
        m.must_reject = True
        # Shorter than an attribute header: the core's own policy check
        # refuses it with ERANGE ("Attribute failed policy validation":
        # 6.1's validate_nla() starts from err = -ERANGE), before the
        # module is asked.
        m.core_erange = n < 4
        return m

    def m_unknown_attr(self):
        m = self.valid()
        rng = self.rng
        target = m.attrs
        top_max = self.spec.sets[self.set]['max']
        mx = top_max
        nests = [a for a in nest_attrs(m) if a.spec['type'] == 'nest']
        if nests and rng.random() < 0.4:
            nest = rng.choice(nests)
            target = nest.children
            mx = self.spec.sets[nest.spec['nested-attributes']]['max']
        t = rng.choice([0, mx + 1, rng.randint(mx + 1, 0x3fff)])
        junk = bytes(rng.getrandbits(8) for _ in range(rng.choice([0, 1, 4, 8])))
        target.insert(rng.randint(0, len(target)), Attr(t, junk))
        m.must_reject = True
        return m

    def m_foreign_attr(self):
        """An attribute the set defines but this command does not take."""
        m = self.valid()
        cands = [a for a in self.spec.sets[self.set]['attrs'].values()
                 if a['name'] not in self.names and
                 a['type'] not in ('unused',)]
        if not cands:
            return None
        a = self.rng.choice(cands)
        v = valid_attr(self.rng, self.spec, a) if a['type'] != 'pad' else \
            Attr(a['value'], b'\0' * 4, spec=None)
        if v is None:
            return None
        m.attrs.insert(self.rng.randint(0, len(m.attrs)), v)
        m.must_reject = True
        return m

    def m_out_of_range(self):
        m = self.valid()
        rng = self.rng
        cands = [a for a in scalar_attrs(m)
                 if 'enum' in a.spec or 'checks' in a.spec]
        if not cands:
            return None
        a = rng.choice(cands)
        t = a.spec['type']
        top = (1 << (SCALAR_SIZE[t] * 8)) - 1
        if 'enum' in a.spec:
            values = self.spec.enums[a.spec['enum']]
            if a.spec.get('enum-as-flags'):
                hi = max(values) + 1
                if hi >= SCALAR_SIZE[t] * 8:
                    return None
                v = 1 << rng.randint(hi, SCALAR_SIZE[t] * 8 - 1)
            else:
                v = rng.choice([max(values) + 1, top,
                                rng.randint(max(values) + 1, top)])
        else:
            mx = a.spec['checks'].get('max')
            if mx is None or mx >= top:
                return None
            v = rng.choice([mx + 1, top, rng.randint(mx + 1, top)])
        a.data = struct.pack('=' + SCALAR_FMT[t], v)
        m.must_reject = True
        return m

    def m_truncated(self):
        """The message ends inside its last attribute (nlmsg_len agrees)."""
        m = self.base()
        body = b''.join(a.encode() for a in m.attrs[:-1])
        last = m.attrs[-1].encode()
        length = struct.unpack_from('=H', last)[0]
        keep = self.rng.randint(1, max(1, length - 1))
        m.raw_attrs = body + last[:keep]
        m.must_reject = True
        return m

    def m_bad_nla_len(self):
        """An nla_len below 4, or past the message's or its nest's end."""
        m = self.base()
        rng = self.rng
        nests = [a for a in nest_attrs(m) if a.children]
        if nests and rng.random() < 0.4:
            siblings = rng.choice(nests).children
        else:
            siblings = m.attrs
        k = rng.randrange(len(siblings))
        victim = siblings[k]
        enc = victim.encode()
        # Past the end of what holds it, not merely past its own end: a
        # length that stops inside the container swallows the attributes
        # after it and can make another valid message (a string that
        # takes in its successors after its NUL was one, seed 2078360932).
        rest = sum(len(a.encode()) for a in siblings[k:])
        if m.attrs is siblings:
            rest += len(m.tail)
        past = rest + rng.randint(1, 64) * 4 + 1
        bad = rng.choice([rng.randint(0, 3), past if past <= 0xffff else 0])
        victim.encode = lambda enc=enc, bad=bad: \
            struct.pack('=H', bad) + enc[2:]
        m.must_reject = True
        return m

    def m_string_tail(self):
        """A string with bytes after its NUL ("/etc/\\0/home"): the core's
        NLA_NUL_STRING check finds its NUL and passes it; the tail would
        be dropped without a word."""
        m = self.base()
        cands = [a for a in all_specced(m) if a.spec['type'] == 'string']
        if not cands:
            return None
        a = self.rng.choice(cands)
        tail = bytes(self.rng.randint(1, 255)
                     for _ in range(self.rng.randint(1, 8)))
        a.data = a.data + tail + self.rng.choice([b'', b'\0'])
        m.must_reject = True
        return m

    def m_missing(self):
        """A valid request less one attribute: may be fine (most are
        optional), and is checked like any other when it is refused."""
        m = self.valid()
        cands = [(m.attrs, a) for a in m.attrs]
        for n in nest_attrs(m):
            cands += [(n.children, c) for c in n.children or []]
        if not cands:
            return None
        lst, a = self.rng.choice(cands)
        lst.remove(a)
        return m

    def m_oversized(self):
        """One attribute of 64 KiB less its header: a scalar, a string
        where a short one is wanted, or a nest of garbage."""
        m = self.base()
        cands = [a for a in m.attrs if a.spec]     # its nest would overflow
        if not cands:
            return None
        a = self.rng.choice(cands)
        n = 0xffff - 4
        if a.spec['type'] in ('nest', 'indexed-array'):
            a.children = None
            a.data = struct.pack('=HH', 0xffff, 1) + \
                bytes(self.rng.getrandbits(8) for _ in range(16)) * \
                ((n - 4) // 16)
        else:
            a.children = None
            a.nested = False
            a.data = b'A' * (n - 1) + b'\0'
        m.must_reject = True
        return m

    def m_repeated(self):
        """The request's attributes many times over, past 64 KiB: last
        one wins (or a list grows past its limit); may be accepted."""
        m = self.valid()
        if not m.attrs:
            return None
        if self.op['name'] in ('set-policy', 'set-budgets'):
            return None     # thousands of rules and budgets: slow to apply
        size = len(m.body())
        m.repeat = max(2, min(BIG // max(size, 1), 4000))
        return m

    def m_repeated_then_bad(self):
        """Past 64 KiB of attributes, then one of an unknown type."""
        m = self.valid()
        if not m.attrs:
            m.attrs = [self.any_attr()]
        size = len(m.body())
        m.repeat = max(2, min(BIG // max(size, 1), 20000))
        m.tail = Attr(self.spec.sets[self.set]['max'] + 1, b'\0' * 4).encode()
        m.must_reject = True
        return m

    def m_reserved(self):
        m = self.valid()
        m.reserved = self.rng.randint(1, 0xffff)
        m.must_reject = True
        return m

    def m_bad_flags(self):
        m = self.valid()
        bits = [NLM_F_MULTI, 0x10, 0x20, 0x400, 0x800, 0x1000, 0x8000]
        if not m.dump:
            bits += [0x100, 0x200]
        m.flags_extra = self.rng.choice(bits)
        m.must_reject = True
        return m

    def m_short_header(self):
        m = self.valid()
        m.attrs = []
        m.cut = 16 + self.rng.randint(0, 3)
        m.must_reject = True
        return m

    def m_wrong_kind(self):
        """NLM_F_DUMP on a do-only command, a do on a dump-only one."""
        if 'do' in self.op and 'dump' in self.op:
            return None
        m = self.valid()
        m.dump = not self.dump
        m.must_reject = True
        return m


# -------------------------------------------------------------- sockets

class NlError(Exception):
    pass


class Answer:
    def __init__(self):
        self.err = 0            # 0 or a negative errno
        self.msg = None         # the extended-ACK message
        self.miss_type = None
        self.replies = []       # (type, flags, payload)
        self.intr = False


class Sock:
    def __init__(self, timeout=TIMEOUT):
        self.s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW,
                               NETLINK_GENERIC)
        self.s.setsockopt(SOL_NETLINK, NETLINK_EXT_ACK, 1)
        self.s.setsockopt(SOL_NETLINK, NETLINK_CAP_ACK, 1)
        try:
            self.s.setsockopt(socket.SOL_SOCKET, 32, SNDBUF)  # SNDBUFFORCE
        except OSError:
            self.s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SNDBUF)
        self.s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
        self.s.bind((0, 0))
        self.s.settimeout(timeout)
        self.seq = random.getrandbits(24) << 4

    def close(self):
        self.s.close()

    def next_seq(self):
        self.seq = (self.seq + 1) & 0xffffffff
        return self.seq

    def transact(self, raw, seq):
        """Send one message; gather the answer to @seq. Raises
        socket.timeout when the kernel says nothing."""
        self.s.send(raw)
        ans = Answer()
        while True:
            data = self.s.recv(1 << 20)
            off = 0
            while off + 16 <= len(data):
                ln, typ, flags, rseq, _ = struct.unpack_from('=IHHII', data, off)
                if ln < 16:
                    raise NlError('reply with nlmsg_len %d' % ln)
                payload = data[off + 16:off + ln]
                off += align4(ln)
                if rseq != seq:
                    continue            # a late answer to an earlier one
                if typ in (NLMSG_ERROR, NLMSG_DONE):
                    code = struct.unpack_from('=i', payload)[0] if \
                        len(payload) >= 4 else 0
                    if typ == NLMSG_DONE and code == 0:
                        return ans
                    # An error, the ACK of a do (after its reply), or
                    # a dump that failed part way: the end, either way.
                    ans.err = code
                    if flags & NLM_F_ACK_TLVS:
                        skip = 4 + (16 if typ == NLMSG_ERROR else 0)
                        if typ == NLMSG_ERROR and not flags & 0x100:
                            # Not capped: the whole request is echoed.
                            skip = 4 + struct.unpack_from('=I', payload, 4)[0]
                        parse_ack_tlvs(payload[align4(skip):], ans)
                    return ans
                if flags & 0x10:        # NLM_F_DUMP_INTR
                    ans.intr = True
                ans.replies.append((typ, flags, payload))


def parse_ack_tlvs(data, ans):
    off = 0
    while off + 4 <= len(data):
        ln, t = struct.unpack_from('=HH', data, off)
        if ln < 4:
            break
        v = data[off + 4:off + ln]
        if t == NLMSGERR_ATTR_MSG:
            ans.msg = v.rstrip(b'\0').decode(errors='replace')
        elif t == NLMSGERR_ATTR_MISS_TYPE and len(v) >= 4:
            ans.miss_type = struct.unpack_from('=I', v)[0]
        off += align4(ln)


def parse_attrs(data):
    out = []
    off = 0
    while off + 4 <= len(data):
        ln, t = struct.unpack_from('=HH', data, off)
        if ln < 4:
            break
        out.append((t & 0x3fff, bool(t & NLA_F_NESTED), data[off + 4:off + ln]))
        off += align4(ln)
    return out


def resolve(sock, name):
    attrs = Attr(CTRL_ATTR_FAMILY_NAME, name.encode() + b'\0').encode()
    raw = struct.pack('=BBH', CTRL_CMD_GETFAMILY, 1, 0) + attrs
    seq = sock.next_seq()
    ans = sock.transact(struct.pack('=IHHII', 16 + len(raw), GENL_ID_CTRL,
                                    NLM_F_REQUEST | NLM_F_ACK, seq, 0) + raw,
                        seq)
    if ans.err:
        raise NlError('%s: CTRL_CMD_GETFAMILY: %s' %
                      (name, os.strerror(-ans.err)))
    for t, _, v in parse_attrs(ans.replies[0][2][4:]):
        if t == CTRL_ATTR_FAMILY_ID:
            return struct.unpack_from('=H', v)[0]
    raise NlError('%s: no family id' % name)


# ------------------------------------------------------------ snapshots

def decode(spec, set_name, data, skip):
    """Attributes of @set_name as a sorted, comparable tuple, without the
    names in @skip."""
    out = []
    for t, _, v in parse_attrs(data):
        a = spec.attr_by_value(set_name, t)
        name = a['name'] if a else 'type-%d' % t
        if name in skip or (a and a['type'] == 'pad'):
            continue
        if a and a['type'] == 'nest':
            v = decode(spec, a['nested-attributes'], v, skip)
        elif a and set_name == 'hook' and name == 'state':
            v = HOOK_STATES.get(v, v)
        out.append((name, v))
    return tuple(out)


class Snapshotter:
    """Every GET and dump the specs define, as one comparable value."""

    def __init__(self, specs, ids):
        self.specs = specs
        self.ids = ids
        self.sock = Sock()
        self.count = 0

    def ask(self, spec, op):
        dump = 'dump' in op and 'do' not in op
        m = Msg(op['value'], [], dump, 'snapshot', False)
        seq = self.sock.next_seq()
        for _ in range(5):
            ans = self.sock.transact(m.encode(self.ids[spec.name], seq,
                                              spec.version), seq)
            if not ans.intr:
                break
            seq = self.sock.next_seq()
        if ans.err:
            raise NlError('snapshot %s: %s (%s)' % (op['name'],
                          os.strerror(-ans.err), ans.msg))
        return ans

    def take(self):
        self.count += 1
        snap = {}
        timer = True
        for spec in self.specs:
            for op in spec.request_ops:
                name = op['name']
                if not name.startswith(('get-', 'dump-')) or \
                        name == 'dump-counters':
                    continue    # only counters; the idle generation is
                    # in get-resources
                skip = set(VOLATILE.get((spec.name, name), ()))
                ans = self.ask(spec, op)
                snap[(spec.name, name)] = tuple(
                    decode(spec, op['attribute-set'], p[4:], skip)
                    for _, _, p in ans.replies)
                if name == 'get-status':
                    status = dict(snap[(spec.name, name)][0])
                    timer = status.get('flush-interval-ms') != \
                        struct.pack('=I', 0)
        if timer:
            for k, v in snap.items():
                snap[k] = tuple(tuple(x for x in r if x[0] not in
                                      TIMER_MOVED) for r in v)
        return snap


def diff(a, b):
    out = []
    for k in sorted(set(a) | set(b)):
        if a.get(k) != b.get(k):
            out.append('%s %s: %r -> %r' % (k[0], k[1], a.get(k), b.get(k)))
    return out


# --------------------------------------------------------- the fuzzing

class Failure(Exception):
    pass


class Stats:
    def __init__(self):
        self.lock = threading.Lock()
        self.sent = {}          # (family, command, who) -> n
        self.errnos = {}        # (family, who, errno name) -> n
        self.accepted = {}      # (family, command, who) -> n
        self.kinds = {}         # kind -> n

    def add(self, fam, cmd, who, kind, err):
        with self.lock:
            k = (fam, cmd, who)
            self.sent[k] = self.sent.get(k, 0) + 1
            self.kinds[kind] = self.kinds.get(kind, 0) + 1
            if err:
                e = ename(-err)
                ek = (fam, who, e)
                self.errnos[ek] = self.errnos.get(ek, 0) + 1
            else:
                self.accepted[k] = self.accepted.get(k, 0) + 1


def check_answer(ans, m, privileged, public):
    """None if @ans is right for @m, else what is wrong."""
    if ans.err == 0:
        if m.must_reject or (not privileged and not public and
                             m.kind != 'unknown-command'):
            return 'accepted'
        return None
    if ans.err > 0 or -ans.err not in errno.errorcode:
        return 'error %d is not a negative errno' % ans.err
    e = -ans.err
    if not privileged and not public and m.kind != 'unknown-command':
        # GENL_ADMIN_PERM: the core refuses before parsing; only header
        # checks (and, on kernels with split ops, the do/dump lookup)
        # come first.
        allowed = {errno.EPERM}
        if m.kind in ('reserved', 'bad-flags', 'short-header'):
            allowed = {errno.EINVAL}
        elif m.kind == 'wrong-kind':
            allowed = {errno.EPERM, errno.EOPNOTSUPP}
        if e not in allowed:
            return '%s, want %s' % (ename(e), ' or '.join(
                ename(x) for x in sorted(allowed)))
        if e == errno.EPERM or (m.kind, e) in CORE_SILENT:
            return None
    elif m.kind in ('unknown-command', 'wrong-kind'):
        if e != errno.EOPNOTSUPP:
            return '%s, want EOPNOTSUPP' % ename(e)
    elif m.kind in MUST_EINVAL and e != errno.EINVAL and \
            not (m.core_erange and e == errno.ERANGE):
        return '%s, want EINVAL' % ename(e)
    if (m.kind, e) in CORE_SILENT:
        return None
    if not ans.msg:
        return '%s without an extended-ACK message%s' % (
            ename(e),
            ' (only MISS_TYPE %d)' % ans.miss_type
            if ans.miss_type is not None else '')
    return None


class Fuzzer:
    def __init__(self, args, specs, ids, stats):
        self.args = args
        self.specs = specs
        self.ids = ids
        self.stats = stats
        self.switches = 0       # SET_CONFIGs that changed mode or hooks

    def send(self, sock, spec, m):
        seq = sock.next_seq()
        raw = m.encode(self.ids[spec.name], seq, spec.version)
        try:
            return raw, sock.transact(raw, seq)
        except socket.timeout:
            return raw, None

    def failure(self, spec, opname, i, m, raw, why):
        hx = raw.hex()
        if len(hx) > 512:
            hx = hx[:512] + '... (%d bytes)' % len(raw)
        return Failure('seed %d, %s %s message %d (%s): %s\n  hex: %s' %
                       (self.args.seed, spec.name, opname, i, m.kind, why, hx))


def op_value(spec, name):
    return next(o['value'] for o in spec.ops if o['name'] == name)


def make_safe(spec, m):
    """An accepted rule set or budget must not refuse or kill the guest's
    own work (this program, guest-run's rmmod): policies go in audit-only
    (POLICY_ENFORCE 0), budgets count without enforcing or killing. For
    requests that may be accepted; malformed ones are left as they are."""
    if m.must_reject or spec.name != 'ftagent_ctl':
        return
    top = spec.sets['ctl']['attrs']
    if m.cmd == op_value(spec, 'set-policy'):
        enf = top['policy-enforce']
        m.attrs = [a for a in m.attrs if a.type != enf['value']] + \
            [Attr(enf['value'], b'\0', spec=enf)]
    elif m.cmd == op_value(spec, 'set-budgets'):
        b = spec.sets['budget']['attrs']
        drop = (b['enforce']['value'], b['kill']['value'])
        for a in m.attrs:
            if a.type == top['budget']['value'] and a.children is not None:
                a.children = [c for c in a.children if c.type not in drop] + \
                    [Attr(b['enforce']['value'], b'\0', spec=b['enforce'])]


def rng_for(seed, *parts):
    return random.Random('%d:%s' % (seed, ':'.join(parts)))


def regressions(spec, op):
    """Messages that found something once (docs/reliability.md), sent
    first, every run, as root."""
    top = spec.sets[op.get('attribute-set', '')]['attrs'] \
        if op.get('attribute-set') in spec.sets else {}
    out = []

    def msg(kind, attrs):
        m = Msg(op['value'], attrs, False, kind, True)
        out.append(m)

    if spec.name != 'ftagent_ctl':
        return out
    # An integer of the wrong length, where the policy had a validation
    # function: 6.1 WARNed in nla_get_range_unsigned() building the ACK.
    short = {'set-config': ['mode', 'hooks', 'flush-interval-ms',
                            'ring-buffer-size'],
             'set-filters': ['net-tcp', 'file-track-sendfile'],
             'set-policy': ['policy-enforce']}
    for name in short.get(op['name'], []):
        for n in (0, 2, 8):
            msg('wrong-length', [Attr(top[name]['value'], b'\x07' * n)])
    # POLICY_DEFAULT past the last action: NLA_POLICY_MAX answered ERANGE.
    if op['name'] == 'set-policy':
        msg('out-of-range', [Attr(top['policy-default']['value'],
                                  struct.pack('=I', 0xffffffff))])
    # A rule's path with bytes after its NUL, swallowed by a bad-nla-len
    # that stopped inside its nest: accepted as "/fi_...".
    if op['name'] == 'set-policy':
        rule = spec.sets['rule']['attrs']
        msg('string-tail', [Attr(top['policy-rule']['value'], children=[
            Attr(rule['name']['value'], b'tail\0'),
            Attr(rule['ops']['value'], struct.pack('=I', 1 << 2)),  # open
            Attr(rule['action']['value'], struct.pack('=I', 2)),    # audit
            Attr(rule['path-prefix']['value'], b'/etc/\0/home\0')])])
    # ACK_GENERATION without GEN_SEQ: EINVAL with MISS_TYPE but no message.
    if op['name'] == 'ack-generation':
        msg('missing', [])
    return out


# SET_CONFIG requests that change the mode or the hook set re-attach every
# hook: 7 s each under TCG. Only this many may; later ones keep both.
SWITCHES = 2
# An event buffer SET_CONFIG may ask for, at most: the module refuses
# more than an eighth of the machine's memory (past that, relay_open()
# had the OOM killer end this program in a guest of 1 GiB), and a few
# large rings in a row still strain a small guest.
RING_MAX = 16 << 20


def tame_config(spec, m, status, pin):
    """A SET_CONFIG that may be accepted: an event buffer of at most
    RING_MAX, and, when @pin, the mode and hook set in force (@status:
    GET_STATUS as a snapshot decodes it)."""
    top = spec.sets['ctl']['attrs']
    keep = {top[n]['value']: status[n] for n in ('mode', 'hooks')} \
        if pin else {}
    ring = top['ring-buffer-size']['value']
    for a in m.attrs:
        if a.children is not None:
            continue
        if a.type in keep:
            a.data = keep[a.type]
        elif a.type == ring and len(a.data) == 4:
            v = struct.unpack('=I', a.data)[0]
            a.data = struct.pack('=I', v % (RING_MAX + 1))


def fuzz_command(fz, snapper, spec, op, n, privileged):
    """@n messages to @op. Raises Failure at the first wrong answer."""
    who = 'root' if privileged else 'nobody'
    rng = rng_for(fz.args.seed, spec.name, op['name'], who)
    gen = Generator(spec, op, rng)
    public = spec.public(op)
    sock = Sock()
    mutating = not op['name'].startswith(('get-', 'dump-'))
    pending = []                # (i, m, raw) rejected since the snapshot
    before = snapper.take() if snapper else None
    fixed = regressions(spec, op) if privileged else []
    # An accepted rule set, budget set or configuration costs an install
    # (gate hooks, buffers) and two snapshots: fewer valid requests there.
    valid_share = 0.05 if mutating else 0.15
    try:
        for i in range(n + len(fixed)):
            if i < len(fixed):
                m = fixed[i]
            else:
                m = gen.valid() if rng.random() < valid_share else \
                    gen.mutate()
            make_safe(spec, m)
            switching = snapper and op['name'] == 'set-config' and \
                not m.must_reject
            if switching:
                status = dict(before[('ftagent_ctl', 'get-status')][0])
                tame_config(spec, m, status, fz.switches >= SWITCHES)
            if snapper and mutating and not m.must_reject and privileged:
                # May be accepted and change the state: settle the batch
                # first, and start a new one after it.
                before = settle(fz, snapper, spec, op, sock, pending, before)
            raw, ans = fz.send(sock, spec, m)
            if ans is None:
                raise fz.failure(spec, op['name'], i, m, raw,
                                 'no answer in %.0f s' % TIMEOUT)
            fz.stats.add(spec.name, op['name'], who, m.kind, ans.err)
            why = check_answer(ans, m, privileged, public)
            if why:
                raise fz.failure(spec, op['name'], i, m, raw, why)
            if ans.err or not mutating:
                # Rejected, or a GET: neither may change anything.
                pending.append((i, m, raw))
            if snapper is None:
                continue
            if ans.err == 0 and mutating:
                if op['name'] == 'set-config':
                    # Keep the flush timer off: the idle generation is
                    # compared only then.
                    set_flush_interval(sock, spec, fz.ids[spec.name], 0)
                before = snapper.take()
                if switching:
                    now = dict(before[('ftagent_ctl', 'get-status')][0])
                    if (now['mode'], now['hooks']) != \
                            (status['mode'], status['hooks']):
                        fz.switches += 1
                pending = []
            elif len(pending) >= fz.args.batch:
                before = settle(fz, snapper, spec, op, sock, pending, before)
        if snapper:
            settle(fz, snapper, spec, op, sock, pending, before)
    finally:
        sock.close()


def settle(fz, snapper, spec, op, sock, pending, before):
    """The state after @pending (rejected, or GETs) must be @before; if not,
    send them again one at a time to find the one that changed it."""
    if not pending:
        return before       # nothing sent since @before was taken
    after = snapper.take()
    if after == before:
        pending.clear()
        return after
    changes = diff(before, after)
    for i, m, raw in list(pending):
        one = snapper.take()
        fz.send(sock, spec, m)
        two = snapper.take()
        if one != two:
            raise fz.failure(spec, op['name'], i, m, raw,
                             'the state changed:\n  ' +
                             '\n  '.join(diff(one, two)))
    raise Failure('seed %d, %s %s: the state changed across %d rejected '
                  'or read-only '
                  'messages, and none did it alone:\n  %s' %
                  (fz.args.seed, spec.name, op['name'], len(pending),
                   '\n  '.join(changes)))


def fuzz_unknown(fz, snapper, spec, n, privileged):
    who = 'root' if privileged else 'nobody'
    rng = rng_for(fz.args.seed, spec.name, 'unknown-commands', who)
    known = {op['value'] for op in spec.request_ops}
    cmds = [c for c in range(256) if c not in known]
    sock = Sock()
    before = snapper.take() if snapper else None
    anyop = spec.request_ops[0]
    gen = Generator(spec, anyop, rng)
    try:
        for i in range(n):
            m = gen.valid() if rng.random() < 0.5 else gen.base()
            m.cmd = rng.choice(cmds)
            m.dump = rng.random() < 0.3
            m.kind = 'unknown-command'
            m.must_reject = True
            raw, ans = fz.send(sock, spec, m)
            if ans is None:
                raise fz.failure(spec, 'cmd %d' % m.cmd, i, m, raw,
                                 'no answer in %.0f s' % TIMEOUT)
            fz.stats.add(spec.name, 'unknown', who, m.kind, ans.err)
            why = check_answer(ans, m, privileged, False)
            if why:
                raise fz.failure(spec, 'cmd %d' % m.cmd, i, m, raw, why)
        if snapper:
            after = snapper.take()
            if after != before:
                raise Failure('seed %d, %s unknown commands changed the '
                              'state:\n  %s' % (fz.args.seed, spec.name,
                                                '\n  '.join(diff(before, after))))
    finally:
        sock.close()


def drop_privileges():
    os.setgroups([])
    os.setgid(65534)
    os.setuid(65534)
    if os.getuid() != 65534:
        raise RuntimeError('still uid %d' % os.getuid())
    with open('/proc/self/status') as f:
        for line in f:
            if line.startswith('CapEff:') and int(line.split()[1], 16):
                raise RuntimeError('capabilities left: ' + line.strip())


def in_child(fn, stats):
    """Run @fn as nobody in a forked child: its failure text, or None.
    What the child counted is added to @stats."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        code, text = 0, ''
        try:
            drop_privileges()
            fn()
        except Exception as e:
            code = 1
            text = str(e) if isinstance(e, Failure) else \
                traceback.format_exc()
        out = json.dumps({'error': text, 'counts': [
            [list(k), v] for k, v in stats.sent.items()], 'errnos': [
            [list(k), v] for k, v in stats.errnos.items()], 'accepted': [
            [list(k), v] for k, v in stats.accepted.items()], 'kinds': [
            [[k], v] for k, v in stats.kinds.items()]})
        os.write(w, out.encode())
        os._exit(code)
    os.close(w)
    out = b''
    while True:
        chunk = os.read(r, 65536)
        if not chunk:
            break
        out += chunk
    os.close(r)
    _, status = os.waitpid(pid, 0)
    try:
        got = json.loads(out)
    except ValueError:
        return 'child status %d, said %r' % (status, out[:2000])
    for name in ('counts', 'errnos', 'accepted', 'kinds'):
        mine = {'counts': stats.sent, 'errnos': stats.errnos,
                'accepted': stats.accepted, 'kinds': stats.kinds}[name]
        for k, v in got[name]:
            k = tuple(k) if len(k) > 1 else k[0]
            mine[k] = max(mine.get(k, 0), v)
    if status != 0:
        return got['error'] or 'child status %d' % status
    return None


def concurrent(fz, snapper, threads, per_thread):
    """Several sockets at once, each in its own thread, sending malformed
    requests to every command (and valid GETs between them); every answer
    is checked, and the state is unchanged at the end."""
    before = snapper.take()
    errors = []
    ops = [(spec, op) for spec in fz.specs for op in spec.request_ops]

    def worker(k):
        rng = rng_for(fz.args.seed, 'concurrent', str(k))
        sock = Sock()
        try:
            for i in range(per_thread):
                spec, op = rng.choice(ops)
                gen = Generator(spec, op, rng)
                if op['name'].startswith(('get-', 'dump-')) and \
                        rng.random() < 0.3:
                    m = gen.valid()
                    m.attrs = []
                else:
                    m = gen.mutate()
                    while not m.must_reject:
                        m = gen.mutate()
                raw, ans = fz.send(sock, spec, m)
                if ans is None:
                    raise fz.failure(spec, op['name'], i, m, raw,
                                     'thread %d: no answer' % k)
                fz.stats.add(spec.name, op['name'], 'concurrent', m.kind,
                             ans.err)
                why = check_answer(ans, m, True, spec.public(op))
                if why:
                    raise fz.failure(spec, op['name'], i, m, raw,
                                     'thread %d: %s' % (k, why))
        except Exception as e:
            errors.append(str(e))
        finally:
            sock.close()

    ts = [threading.Thread(target=worker, args=(k,)) for k in range(threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    if errors:
        raise Failure('\n'.join(errors))
    after = snapper.take()
    if after != before:
        raise Failure('seed %d: concurrent rejected requests changed the '
                      'state:\n  %s' % (fz.args.seed,
                                        '\n  '.join(diff(before, after))))


# ---------------------------------------------------------------- main

def set_flush_interval(sock, spec, fam_id, ms):
    op = next(o for o in spec.ops if o['name'] == 'set-config')
    a = spec.sets['ctl']['attrs']['flush-interval-ms']
    m = Msg(op['value'], [Attr(a['value'], struct.pack('=I', ms))], False,
            'setup', False)
    seq = sock.next_seq()
    ans = sock.transact(m.encode(fam_id, seq, spec.version), seq)
    if ans.err:
        raise NlError('set-config flush-interval-ms %d: %s (%s)' %
                      (ms, os.strerror(-ans.err), ans.msg))


def do(sock, spec, fam_id, name, raw_attrs):
    m = Msg(op_value(spec, name), [], False, 'setup', False)
    m.raw_attrs = raw_attrs
    seq = sock.next_seq()
    ans = sock.transact(m.encode(fam_id, seq, spec.version), seq)
    if ans.err:
        raise NlError('%s: %s (%s)' % (name, os.strerror(-ans.err), ans.msg))
    return ans


def reset(sock, spec, fam_id, status_raw, filters_raw):
    """Back to the state the run found: no rule set and no budget (a
    freshly loaded module has neither), the filters and the configuration
    as they were."""
    do(sock, spec, fam_id, 'set-policy', b'')
    do(sock, spec, fam_id, 'set-budgets', b'')
    do(sock, spec, fam_id, 'set-filters', filters_raw)
    keep = {spec.sets['ctl']['attrs'][n]['value'] for n in
            ('mode', 'hooks', 'flush-interval-ms', 'ring-buffer-size')}
    do(sock, spec, fam_id, 'set-config', b''.join(
        Attr(t, v).encode() for t, _, v in parse_attrs(status_raw)
        if t in keep))


def split(tests, part, parts):
    """The part-th of parts shares of tests, of about equal time.

    Accepted SET_* requests as root re-attach hooks and cost several times
    what any other command costs (docs/reliability.md, "Time"), so each
    weighs 4 and everything else 1; each test goes to the least loaded
    share in turn, and the order within a share is kept.
    """
    load = [0] * parts
    mine = []
    for t in tests:
        weight = 4 if ' set-' in t[0] and 'nobody' not in t[0] else 1
        k = load.index(min(load))
        load[k] += weight
        if k == part - 1:
            mine.append(t)
    return mine


def main():
    p = argparse.ArgumentParser()
    p.add_argument('build', nargs='?')
    p.add_argument('--seed', type=int,
                   default=int(os.environ.get('NLFUZZ_SEED') or
                               random.SystemRandom().getrandbits(32)))
    p.add_argument('--per-command', type=int,
                   default=int(os.environ.get('NLFUZZ_PER_COMMAND') or 1000))
    p.add_argument('--batch', type=int, default=100)
    p.add_argument('--threads', type=int, default=4)
    p.add_argument('--only')
    p.add_argument('--no-unpriv', action='store_true')
    p.add_argument('--part', default=os.environ.get('NLFUZZ_PART') or '1/1')
    args = p.parse_args()
    try:
        part, parts = (int(x) for x in args.part.split('/'))
        if not 1 <= part <= parts:
            raise ValueError
    except ValueError:
        p.error('--part %r: want K/N with 1 <= K <= N' % args.part)

    specs = [Spec(path) for path in SPEC_FILES]
    log('seed %d, %d messages per command (replay: --seed %d '
        '--per-command %d)' % (args.seed, args.per_command, args.seed,
                               args.per_command))
    sock = Sock()
    ids = {s.name: resolve(sock, s.name) for s in specs}
    ctl = next(s for s in specs if s.name == 'ftagent_ctl')
    stats = Stats()
    fz = Fuzzer(args, specs, ids, stats)
    snapper = Snapshotter(specs, ids)
    ops = {o['name']: o for o in ctl.ops}
    status_raw = snapper.ask(ctl, ops['get-status']).replies[0][2][4:]
    filters_raw = snapper.ask(ctl, ops['get-filters']).replies[0][2][4:]
    set_flush_interval(sock, ctl, ids[ctl.name], 0)

    tests = []
    for spec in specs:
        for op in spec.request_ops:
            tests.append(('%s %s' % (spec.name, op['name']),
                          lambda spec=spec, op=op: fuzz_command(
                              fz, snapper, spec, op, args.per_command, True)))
        tests.append(('%s unknown commands' % spec.name,
                      lambda spec=spec: fuzz_unknown(
                          fz, snapper, spec, args.per_command, True)))
    if not args.no_unpriv:
        for spec in specs:
            for op in spec.request_ops:
                def unpriv(spec=spec, op=op):
                    before = snapper.take()
                    why = in_child(lambda: fuzz_command(
                        fz, None, spec, op, args.per_command, False), stats)
                    if why:
                        raise Failure(why)
                    after = snapper.take()
                    if after != before:
                        raise Failure('seed %d: %s %s as nobody changed the '
                                      'state:\n  %s' % (
                                          args.seed, spec.name, op['name'],
                                          '\n  '.join(diff(before, after))))
                tests.append(('%s %s as nobody' % (spec.name, op['name']),
                              unpriv))
    tests.append(('%d concurrent senders' % args.threads,
                  lambda: concurrent(fz, snapper, args.threads,
                                     max(1, args.per_command //
                                         args.threads))))
    if args.only:
        tests = [t for t in tests if args.only in t[0]]
    if parts > 1:
        tests = split(tests, part, parts)
        log('part %d of %d: %s' % (part, parts,
                                   ', '.join(t[0] for t in tests)))

    print('1..%d' % len(tests), flush=True)
    failed = 0
    started_all = time.monotonic()
    for i, (name, fn) in enumerate(tests, 1):
        started = time.monotonic()
        try:
            fn()
            log('%s: %.1f s' % (name, time.monotonic() - started))
            print('ok %d - %s' % (i, name), flush=True)
        except Exception as e:
            failed += 1
            log(e if isinstance(e, Failure) else traceback.format_exc())
            print('not ok %d - %s' % (i, name), flush=True)
    try:
        reset(sock, ctl, ids[ctl.name], status_raw, filters_raw)
    except Exception:
        failed += 1
        log(traceback.format_exc())
    log('total %.1f s, %d snapshots' % (time.monotonic() - started_all,
                                        snapper.count))
    for (fam, cmd, who), n in sorted(stats.sent.items()):
        log('sent %s %s %s: %d (%d accepted)' % (
            who, fam, cmd, n, stats.accepted.get((fam, cmd, who), 0)))
    for (fam, who, e), n in sorted(stats.errnos.items()):
        log('errno %s %s %s: %d' % (who, fam, e, n))
    for k, n in sorted(stats.kinds.items()):
        log('kind %s: %d' % (k, n))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
