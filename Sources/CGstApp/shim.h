#include <gst/app/app.h>
