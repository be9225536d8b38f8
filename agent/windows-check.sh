#!/bin/sh
# The Windows build checked on this Linux machine (no Windows machine runs the tests):
#  1. vet every package for GOOS=windows and compile every package's tests for it, so a
#     Windows-only file that does not build fails CI;
#  2. run the Windows syscall layer's tests (PDH, retrieval pointers, the scanner's walk, the
#     registry, the ETW session's refusal, safeopen, the read cache's pins, prefetch and memory,
#     write optimisation's file events and its refusals) and the collectors' fixture tests as Windows
#     binaries under Wine, when Debian's wine64 and the MinGW compiler are installed. Go 1.22+
#     binaries need ProcessPrng from bcryptprimitives.dll, which Wine 8 lacks: the shim in
#     e2e/support/wine (over RtlGenRandom) is built here and put in a private prefix's system32.
# The mapping code is platform-neutral and also runs in `go test ./...` against the fixtures.
set -eu
cd "$(dirname "$0")"
out=$(mktemp -d)
trap 'WINEPREFIX="$out/prefix" /usr/lib/wine/wineserver -k 2>/dev/null; rm -rf "$out"' EXIT
echo "windows: go vet ./... (GOOS=windows GOARCH=amd64)"
GOOS=windows GOARCH=amd64 go vet ./...
echo "windows: go test -c ./... (GOOS=windows GOARCH=amd64)"
GOOS=windows GOARCH=amd64 go test -c -o "$out/" ./... | grep -v 'no test files' || true
echo "windows: $(find "$out" -maxdepth 1 -type f | wc -l) test binaries built"

wine=/usr/lib/wine/wine64
if [ ! -x "$wine" ] || ! command -v x86_64-w64-mingw32-gcc >/dev/null; then
	echo "windows: NOT RUN under Wine: install wine64 and gcc-mingw-w64-x86-64-win32 (Debian) to run the Windows binaries"
	exit 0
fi
shim=../e2e/support/wine  # the same shim the Wine end-to-end test uses
x86_64-w64-mingw32-gcc -shared -O2 -o "$out/bcryptprimitives.dll" "$shim/bcryptprimitives.c" "$shim/bcryptprimitives.def" -ladvapi32
export WINEPREFIX="$out/prefix" WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
"$wine" wineboot -i >/dev/null 2>&1 || true
/usr/lib/wine/wineserver -w
cp "$out/bcryptprimitives.dll" "$WINEPREFIX/drive_c/windows/system32/"
# package and the tests of it that run under Wine (the others need Linux, or t.TempDir, whose
# cleanup Wine 8 refuses)
for spec in \
	"pdh ." \
	"fiemap ." \
	"etw ." \
	"fragscan Windows" \
	"dbdetect Windows|HostRegistry" \
	"collector PDH|SQLServer|FileCache|CopyReads|TicksToMs|PhysicalDrive|Accel" \
	"safeopen ." \
	"accel/readcache ." \
	"accel/writeopt Preallocation|Trim|Defragmentation|Notification|FreeRun|VolumeBitmap|BusyPercent|Window"; do
	# shellcheck disable=SC2086 # split "package pattern" into $1 $2
	set -- $spec
	name=$(basename "$1")
	echo "windows: internal/$1 under Wine"
	(cd "internal/$1" && "$wine" "$out/$name.test.exe" -test.run "$2" -test.v) | grep -E '^(--- |ok|PASS|FAIL)' >"$out/$name.log" || true
	cat "$out/$name.log"
	grep -q '^PASS' "$out/$name.log" || { echo "windows: internal/$1 FAILED under Wine"; exit 1; }
done
