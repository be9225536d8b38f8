/* The one export of bcryptprimitives.dll that Go 1.22+ Windows binaries need and Wine 8 lacks:
 * ProcessPrng, which fills a buffer with random bytes and cannot fail on Windows. Implemented
 * over RtlGenRandom (advapi32's SystemFunction036), which Wine has. Test-only: copied into a
 * throwaway Wine prefix by e2e/support/wine.ts and agent/windows-check.sh, never shipped. */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length) {
  while (length > 0) {
    ULONG chunk = length > 0x40000000 ? 0x40000000 : (ULONG)length;
    if (!SystemFunction036(data, chunk)) return FALSE;
    data += chunk;
    length -= chunk;
  }
  return TRUE;
}
