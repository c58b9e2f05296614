// webrtcbin's library is marked unstable API in 1.22; arserve uses only what 1.22 to 1.24 keep.
#define GST_USE_UNSTABLE_API 1
#include <gst/webrtc/webrtc.h>
