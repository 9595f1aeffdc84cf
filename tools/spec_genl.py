#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""A generic netlink client for any genetlink-legacy spec, on pyroute2.

Nothing here knows ftagent: the message classes (pyroute2's genlmsg and
nla with an nla_map) are built at run time from the YAML spec, and requests
and replies use the spec's names ('get-status', 'gen-seq'). Enough of the
spec format for ftagent's two families: scalars, strings, binary (structs
decoded with struct_decode), nests, multi-attr, indexed-arrays of scalars.

    fam = SpecFamily('uapi/ftagent_ctl.yaml')
    status = fam.do('get-status')[0]
    status.get_attr('module-version')

usage: spec_genl.py SPEC OPERATION [dump]   (prints the reply's attributes)
"""
import struct
import sys

import yaml
from pyroute2.netlink import (NLM_F_ACK, NLM_F_DUMP, NLM_F_REQUEST,
                              NLMSG_ERROR, genlmsg, nla)
from pyroute2.netlink.generic import GenericNetlinkSocket

# Spec type -> pyroute2 NLA type.
NLA_TYPES = {'u8': 'uint8', 'u16': 'uint16', 'u32': 'uint32', 'u64': 'uint64',
             's8': 'int8', 's16': 'int16', 's32': 'int32', 's64': 'int64',
             'string': 'asciiz', 'binary': 'cdata', 'flag': 'flag',
             'pad': 'none', 'unused': 'none'}
# Spec type -> struct module format, for struct members (little-endian
# host order, as the kernel lays them out on x86-64 and arm64).
STRUCT_FMT = {'u8': 'B', 'u16': 'H', 'u32': 'I', 'u64': 'Q',
              's8': 'b', 's16': 'h', 's32': 'i', 's64': 'q'}
# An indexed-array carries its entries as types 1..N; more than any
# ftagent array holds, still small.
INDEXED_MAX = 64


class SpecError(Exception):
    """The kernel refused a request: errno, extended-ACK message, offset."""

    def __init__(self, code, msg, offset):
        super().__init__(code, msg, offset)
        self.code, self.msg, self.offset = code, msg, offset


class SpecFamily:
    def __init__(self, spec_path, sock=None):
        with open(spec_path) as f:
            self.spec = yaml.safe_load(f)
        self.name = self.spec['name']
        self.version = self.spec.get('version', 1)
        self.defs = {d['name']: d for d in self.spec.get('definitions', [])}
        self.sets = {s['name']: s for s in self.spec['attribute-sets']}
        self.ops = {}
        value = 1
        for op in self.spec['operations']['list']:
            value = op.get('value', value)
            self.ops[op['name']] = dict(op, value=value)
            value += 1
        roots = {op['attribute-set'] for op in self.ops.values()}
        if len(roots) != 1:
            raise ValueError('one attribute set for all operations, please')
        self._classes = {}
        self.msg_class = self._class(roots.pop(), genlmsg)
        self.sock = sock or GenericNetlinkSocket(ext_ack=True)
        self.sock.bind(self.name, self.msg_class)

    # -- names and values from the spec ------------------------------------
    def attrs(self, set_name):
        """[(value, attr)] of a set; a subset takes its parent's values."""
        s = self.sets[set_name]
        if 'subset-of' in s:
            parent = dict((a['name'], v) for v, a in self.attrs(s['subset-of']))
            full = {a['name']: a for _, a in self.attrs(s['subset-of'])}
            return [(parent[a['name']], dict(full[a['name']], **a))
                    for a in s['attributes']]
        out, value = [], 1
        for a in s['attributes']:
            value = a.get('value', value)
            out.append((value, a))
            value += 1
        return out

    def enum(self, name):
        """{entry: value} of a definition enum."""
        d = self.defs[name]
        out, value = {}, d.get('value-start', 0)
        for e in d['entries']:
            if isinstance(e, dict):
                value = e.get('value', value)
                e = e['name']
            out[e] = value
            value += 1
        return out

    def struct_decode(self, name, raw):
        """A binary attribute of a struct definition, as a dict; a newer
        module may append members: only the known prefix is read."""
        fmt, names = self._struct_fmt(name)
        size = struct.calcsize(fmt)
        if len(raw) < size:
            raise ValueError('%s: %d bytes, want %d' % (name, len(raw), size))
        return dict(zip(names, struct.unpack_from(fmt, raw)))

    def struct_size(self, name):
        return struct.calcsize(self._struct_fmt(name)[0])

    def _struct_fmt(self, name, prefix=''):
        fmt, names = '<', []
        for m in self.defs[name]['members']:
            if 'struct' in m:
                f, n = self._struct_fmt(m['struct'], prefix + m['name'] + '.')
                fmt, names = fmt + f[1:], names + n
            else:
                fmt += STRUCT_FMT[m['type']]
                names.append(prefix + m['name'])
        return fmt, names

    # -- pyroute2 classes ----------------------------------------------------
    def _class(self, set_name, base):
        key = (set_name, base)
        if key in self._classes:
            return self._classes[key]
        ns = {'__slots__': ()}
        nla_map = []
        for value, a in self.attrs(set_name):
            kind = a['type']
            if kind == 'nest':
                ptype = 'ynl_' + a['nested-attributes'].replace('-', '_')
                ns[ptype] = self._class(a['nested-attributes'], nla)
            elif kind == 'indexed-array':
                ptype = 'ynl_array_' + a['name'].replace('-', '_')
                ns[ptype] = type(ptype, (nla,), {
                    '__slots__': (),
                    'nla_map': tuple((i, str(i), NLA_TYPES[a['sub-type']])
                                     for i in range(1, INDEXED_MAX + 1))})
            else:
                ptype = NLA_TYPES[kind]
            nla_map.append((value, a['name'], ptype))
        ns['nla_map'] = tuple(nla_map)
        cls = type('ynl_' + set_name.replace('-', '_'), (base,), ns)
        self._classes[key] = cls
        return cls

    # -- requests --------------------------------------------------------------
    def request(self, op_name, attrs=(), dump=False):
        """Send OP with [(name, value)] attrs; return the reply messages.
        Raise SpecError with the kernel's extended ACK on refusal."""
        op = self.ops[op_name]
        mode = op['dump' if dump else 'do']
        msg = self.msg_class()
        msg['cmd'] = op['value']
        msg['version'] = self.version
        msg['attrs'] = [list(a) for a in attrs]
        flags = NLM_F_REQUEST
        if dump:
            flags |= NLM_F_DUMP
        elif 'reply' not in mode:
            flags |= NLM_F_ACK  # nothing else would answer a success
        seq = self.sock.addr_pool.alloc()
        try:
            self.sock.put(msg, self.sock.prid, flags, msg_seq=seq)
            replies = self.sock.get(msg_seq=seq, noraise=True)
        finally:
            self.sock.addr_pool.free(seq, ban=0xFF)
        for r in replies:
            err = r['header'].get('error')
            if r['header']['type'] == NLMSG_ERROR and err is not None:
                raise SpecError(err.code, r.get_attr('NLMSGERR_ATTR_MSG'),
                                r.get_attr('NLMSGERR_ATTR_OFFS'))
        return [r for r in replies if r['header']['type'] == self.sock.prid]

    def do(self, op_name, attrs=()):
        return self.request(op_name, attrs)

    def dump(self, op_name, attrs=()):
        return self.request(op_name, attrs, dump=True)

    def close(self):
        self.sock.close()


def main(argv):
    fam = SpecFamily(argv[1])
    for msg in fam.request(argv[2], dump=len(argv) > 3 and argv[3] == 'dump'):
        for name, value in msg['attrs']:
            print('%s: %s' % (name, value))
    fam.close()
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
