/* The plugin entry point. The list of elements lives in Swift (ARElements/Plugin.swift). */
#include "arbridge.h"

#define AR_PACKAGE "arbarcode"
#define PACKAGE AR_PACKAGE
#define AR_VERSION "0.1.0"
#define AR_LICENSE "MIT/X11"
#define AR_ORIGIN "https://github.com/arbarcode/arbarcode"

/* Defined in Swift with @_cdecl: registers every element. */
extern gboolean ar_swift_plugin_init (GstPlugin * plugin);

static gboolean
plugin_init (GstPlugin * plugin)
{
  return ar_swift_plugin_init (plugin);
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, arbarcode,
    "Barcode and QR code detection, tracking and AR overlays",
    plugin_init, AR_VERSION, AR_LICENSE, AR_PACKAGE, AR_ORIGIN)

/* Once per process: registering again would replace the element factories that existing
 * element classes point to. */
gboolean
ar_plugin_register_static (void)
{
  static gsize done = 0;
  static gboolean ok = FALSE;
  if (g_once_init_enter (&done)) {
    ok = gst_plugin_register_static (GST_VERSION_MAJOR, GST_VERSION_MINOR, "arbarcode",
        "Barcode and QR code detection, tracking and AR overlays", plugin_init, AR_VERSION,
        AR_LICENSE, AR_PACKAGE, AR_PACKAGE, AR_ORIGIN);
    g_once_init_leave (&done, 1);
  }
  return ok;
}
