#define _GNU_SOURCE
#include "COSShim.h"

#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int
COSShim_gettid (void)
{
  return (int) syscall (SYS_gettid);
}

void
COSShim_set_thread_name (const char *name)
{
  prctl (PR_SET_NAME, name, 0, 0, 0);
}
