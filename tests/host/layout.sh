#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The layout's one-way rule (design.md, "Shape of the code"): nothing
# under tools/ reaches up into daemon/, and ftctl links the shared library
# (tools/lib), not the daemon's. Prints TAP.
#
# usage: layout.sh BUILD_DIR
set -u
# shellcheck source=tests/lib/results.sh
. "$(dirname "$0")/../lib/results.sh"
build=$1
top=$(cd "$(dirname "$0")/../.." && pwd)

no_daemon_includes() {
	local hits
	hits=$(grep -rnE '#include *"[^"]*daemon/' "$top/tools" \
		--include='*.c' --include='*.h')
	[ -z "$hits" ] || { echo "# $hits"; return 1; }
}

# The link line make would run for ftctl, without running it.
ftctl_links_no_daemon_lib() {
	local line
	line=$(make -s -C "$top" -n -W tools/ftctl/main.c BUILD="$build" \
		"$build/ftctl" 2>&1 | grep -F -- "-o $build/ftctl ")
	[ -n "$line" ] || { echo "# no link line for ftctl"; return 1; }
	[[ $line != *libftagentd* ]] || { echo "# $line"; return 1; }
}

# The collector owns the totals; the metrics page reads them: no include
# runs from the collector to the page.
collector_not_on_metrics() {
	! grep -n '#include "metrics.h"' "$top/daemon/collector.h" \
		"$top/daemon/collector.c" "$top/daemon/totals.h"
}

# One job a file: only the HTTP layer knows libmicrohttpd.
only_http_knows_microhttpd() {
	local hits
	hits=$(grep -ln 'microhttpd.h' "$top"/daemon/*.[ch] |
		grep -v '/metrics_http.c$')
	[ -z "$hits" ] || { echo "# $hits"; return 1; }
}

echo "1..4"
check "nothing under tools/ includes a daemon/ header" no_daemon_includes
check "ftctl is linked without libftagentd.a" ftctl_links_no_daemon_lib
check "the collector does not include the metrics page" collector_not_on_metrics
check "only metrics_http.c includes microhttpd.h" only_http_knows_microhttpd
[ "$failed" -eq 0 ]
