/* Keeps a Wine prefix up: Wine ends its services (ours included) once the last ordinary process
 * of the prefix exits, so the test runs this one for as long as the agent's service must run. */
#include <windows.h>

int main(void) {
  Sleep(INFINITE);
  return 0;
}
