-- SPDX-License-Identifier: GPL-2.0
--
-- sysdig chisel used by tools/bench/peers/sysdig: counts the exit events of
-- the calls ftagent hooks, and sums their returned bytes, per call and pid,
-- in memory (as an agent would), and writes WORKDIR/counts at the end of the
-- capture. The first openat of a path containing "ftg-peer-ready" writes
-- WORKDIR/ready: the start script uses it to know events flow end to end.

description = "per-pid call and byte counts for the ftagent benchmark"
short_description = "ftagent benchmark peer counter"
category = "misc"
args = {
	{ name = "workdir", description = "directory for ready and counts", argtype = "string" },
}

-- sysdig's event name -> ftagent's call name; true: the result is bytes.
-- This driver (scap 0.1.1, 2022) has no preadv2/pwritev2 events, and names
-- accept4's events "accept": accept counts both.
local calls = {
	read = { "read", true }, readv = { "readv", true },
	pread = { "pread64", true }, preadv = { "preadv", true },
	write = { "write", true }, writev = { "writev", true },
	pwrite = { "pwrite64", true }, pwritev = { "pwritev", true },
	recvfrom = { "recvfrom", true }, recvmsg = { "recvmsg", true },
	recvmmsg = { "recvmmsg", false },
	sendto = { "sendto", true }, sendmsg = { "sendmsg", true },
	sendmmsg = { "sendmmsg", false },
	sendfile = { "sendfile", true }, splice = { "splice", true },
	copy_file_range = { "copy_file_range", true },
	connect = { "connect", false }, accept = { "accept", false },
	bind = { "bind", false },
	listen = { "listen", false }, open = { "open", false },
	openat = { "openat", false }, openat2 = { "openat2", false },
	creat = { "creat", false },
}

local workdir
local ready = false
local ncalls = {}
local nbytes = {}

function on_set_arg(name, val)
	workdir = val
	return true
end

function on_init()
	local names = {}
	for k, _ in pairs(calls) do
		names[#names + 1] = k
	end
	f_pid = chisel.request_field("proc.pid")
	f_type = chisel.request_field("evt.type")
	f_res = chisel.request_field("evt.rawres")
	f_name = chisel.request_field("fd.name")
	chisel.set_filter("evt.dir=< and evt.type in (" .. table.concat(names, ", ") .. ")")
	return true
end

function on_event()
	local t = evt.field(f_type)
	local c = calls[t]
	if c == nil then
		return true
	end
	local pid = evt.field(f_pid) or 0
	local per = ncalls[t]
	if per == nil then
		per = {}
		ncalls[t] = per
		nbytes[t] = {}
	end
	per[pid] = (per[pid] or 0) + 1
	if c[2] then
		local res = evt.field(f_res) or 0
		if res > 0 then
			nbytes[t][pid] = (nbytes[t][pid] or 0) + res
		end
	end
	if not ready and t == "openat" then
		local name = evt.field(f_name)
		if name ~= nil and string.find(name, "ftg-peer-ready", 1, true) then
			local f = io.open(workdir .. "/ready", "w")
			f:write(name .. "\n")
			f:close()
			ready = true
		end
	end
	return true
end

function on_capture_end()
	local f = io.open(workdir .. "/counts.tmp", "w")
	for t, per in pairs(ncalls) do
		local c = calls[t]
		for pid, n in pairs(per) do
			local b = "-"
			if c[2] then
				b = tostring(nbytes[t][pid] or 0)
			end
			f:write(c[1] .. " " .. n .. " " .. b .. " " .. pid .. "\n")
		end
	end
	f:close()
	os.rename(workdir .. "/counts.tmp", workdir .. "/counts")
	return true
end
