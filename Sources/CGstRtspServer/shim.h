#include <gst/rtsp-server/rtsp-server.h>
#include <glib-unix.h>
