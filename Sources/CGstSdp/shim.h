#include <gst/sdp/sdp.h>
