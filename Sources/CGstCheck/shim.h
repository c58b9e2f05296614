#include <gst/check/gstharness.h>
