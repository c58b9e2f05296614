/* arbridge: the generic C side of arbarcode's Swift elements.
 *
 * GObject needs a few things Swift cannot express: GST_PLUGIN_DEFINE, GType registration with
 * class_init/instance_init, property installation and vfunc pointers. This bridge does them once,
 * driven by a table (ArElementSpec) that the Swift side fills in. Every element's behaviour lives
 * in Swift, behind the callbacks of ArElementVTable.
 *
 * Ownership: a spec passed to ar_element_register(), and everything it points to, must stay valid
 * for the life of the process (GType classes are never unloaded). `impl` is an opaque, retained
 * Swift object owned by the element instance: created in instance_init, released in finalize.
 *
 * Threads: get/set_property run on whatever thread the application uses; start, stop, set_info
 * run on the state-change or streaming thread; transform and events run on the streaming thread.
 * The Swift side guards property values with a lock.
 */
#ifndef ARBRIDGE_H
#define ARBRIDGE_H

#include <gst/gst.h>
#include <gst/base/gstbasetransform.h>
#include <gst/video/video.h>
#include <gst/video/gstvideofilter.h>

G_BEGIN_DECLS

/** GValue types Swift names without GLib's G_TYPE_* macros (see ar_value_gtype). */
typedef enum {
  AR_VALUE_BOOLEAN,
  AR_VALUE_INT,
  AR_VALUE_UINT,
  AR_VALUE_INT64,
  AR_VALUE_UINT64,
  AR_VALUE_DOUBLE,
  AR_VALUE_STRING,
  AR_VALUE_POINTER,   /* e.g. a cairo_t* */
  AR_VALUE_STRUCTURE, /* a GstStructure (boxed) */
  AR_VALUE_NONE       /* a signal's void return type */
} ArValueType;

/** One GObject signal (G_SIGNAL_RUN_LAST). An action signal is one the application emits
 * (g_signal_emit_by_name) and the element handles, through ArElementVTable.action. */
typedef struct {
  const gchar *name;
  GType return_type;          /* G_TYPE_NONE for void */
  guint n_params;
  const GType *param_types;   /* boxed types such as CairoContext let bindings (PyGObject) hand
                               * the handler a cairo context instead of a bare pointer */
  gboolean is_action;
} ArSignalSpec;

/** Which GStreamer base class the element derives from. */
typedef enum {
  AR_BASE_VIDEO_FILTER = 0, /* GstVideoFilter, in place (transform_ip): sink and src pads */
  AR_BASE_VIDEO_SOURCE = 1  /* GstPushSrc producing raw video in TIME format: a src pad */
} ArBaseKind;

/** Callbacks into Swift. `impl` is the pointer returned by `create`. NULL entries are skipped,
 * except create, destroy, transform_frame and (filters) convert_frame. */
typedef struct {
  gpointer (*create) (gpointer class_data, GstElement * element);
  void (*destroy) (gpointer impl);
  void (*get_property) (gpointer impl, guint index, GValue * value);
  void (*set_property) (gpointer impl, guint index, const GValue * value);
  /* Return FALSE after posting an error message. */
  gboolean (*start) (gpointer impl);
  gboolean (*stop) (gpointer impl);
  /* Filters: the input caps; sources: the negotiated output caps. */
  gboolean (*set_info) (gpointer impl, GstCaps * caps, const GstVideoInfo * info);
  /* Filters: process the frame, mapped read-only or read-write according to
   * ArElementSpec.writes_frame; the buffer is writable for metadata.
   * Sources: draw the next frame (mapped read-write) and set the buffer's timestamps;
   * return GST_FLOW_EOS at the end. */
  GstFlowReturn (*transform_frame) (gpointer impl, GstBuffer * buffer, GstVideoFrame * frame);
  /* Called before the default handling; return FALSE to drop (consume) the event. */
  gboolean (*sink_event) (gpointer impl, GstEvent * event);
  gboolean (*src_event) (gpointer impl, GstEvent * event);
  /* Return TRUE after answering `query` (it is then not passed on), FALSE for default handling. */
  gboolean (*query) (gpointer impl, GstPadDirection direction, GstQuery * query);
  /* Filters: the caps on the other pad for `caps` on pad `direction` (transfer full), or NULL
   * for the default (same caps). `filter` may be NULL. */
  GstCaps *(*transform_caps) (gpointer impl, GstPadDirection direction, GstCaps * caps,
      GstCaps * filter);
  /* Fixate `caps` (transfer full in and out), or NULL entry for gst_caps_fixate. Sources: the
   * caps downstream allows. Filters: the output caps for the negotiated input, candidates in
   * downstream's order of preference. */
  GstCaps *(*fixate) (gpointer impl, GstCaps * caps);
  /* An action signal was emitted: `params` are its parameters after the instance; set
   * `return_value` (already initialised to the return type) unless it is NULL. */
  void (*action) (gpointer impl, guint signal_index, const GValue * params, guint n_params,
      GValue * return_value);
  /* Filters whose transform_caps offers another format than the input's, when that one was
   * negotiated: fill `out` (the output buffer, mapped read-write) from `in` (mapped read-only).
   * transform_frame then runs on `out`. With equal input and output formats the filter stays in
   * place and this is not called. */
  GstFlowReturn (*convert_frame) (gpointer impl, GstVideoFrame * in, GstVideoFrame * out);
  /* Filters: upstream offered fixed `caps` that nothing in the sink template (`accepted`) takes.
   * Post a WARNING naming both; upstream then fails with a bare "not-negotiated". */
  void (*refused_caps) (gpointer impl, GstCaps * caps, GstCaps * accepted);
} ArElementVTable;

/** Everything that describes one element type. */
typedef struct {
  ArBaseKind base;
  const gchar *factory_name;  /* e.g. "arbarcodedetect" */
  const gchar *type_name;     /* e.g. "ArBarcodeDetect" */
  const gchar *long_name;
  const gchar *klass;
  const gchar *description;
  const gchar *author;
  guint rank;
  const gchar *sink_caps;     /* caps string; unused by sources */
  const gchar *src_caps;
  gboolean writes_frame;      /* map frames read-write (drawing) instead of read-only (analysis) */
  GParamSpec *const *properties;  /* installed as property ids 1…n (GObject sinks them) */
  guint n_properties;
  const ArSignalSpec *signals;
  guint n_signals;
  ArElementVTable vtable;
  gpointer class_data;        /* passed to vtable.create */
} ArElementSpec;

/** Registers a GType for `spec` and the element factory with `plugin`. */
gboolean ar_element_register (GstPlugin * plugin, const ArElementSpec * spec);

/** Emits signal number `signal_index` of the element's spec. `params` holds the parameters after
 * the instance, already initialised to the declared types. `return_value` may be NULL. */
void ar_element_emit_signal (GstElement * element, guint signal_index, const GValue * params,
    guint n_params, GValue * return_value);

/** The GType of an ArValueType (e.g. for GValue initialisation from Swift). */
GType ar_value_gtype (ArValueType type);

/** Registers the arbarcode plugin statically, for applications and tests that link it. */
gboolean ar_plugin_register_static (void);

G_END_DECLS

#endif
