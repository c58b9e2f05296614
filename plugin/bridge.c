/* Generic GObject/GStreamer glue for Swift elements: see arbridge.h. */
#include "arbridge.h"

#include <string.h>

/* Instance and class structs shared by every Swift-backed video filter. */
typedef struct {
  GstVideoFilter parent;
  gpointer impl;
} ArVideoFilter;

typedef struct {
  GstVideoFilterClass parent_class;
  const ArElementSpec *spec;
  guint *signal_ids;
} ArVideoFilterClass;

#define AR_VIDEO_FILTER(obj) ((ArVideoFilter *) (obj))
#define AR_VIDEO_FILTER_GET_CLASS(obj) ((ArVideoFilterClass *) G_OBJECT_GET_CLASS (obj))
#define SPEC(obj) (AR_VIDEO_FILTER_GET_CLASS (obj)->spec)

#define PARENT_CLASS(obj) \
  ((GstVideoFilterClass *) g_type_class_peek_parent (G_OBJECT_GET_CLASS (obj)))

GType
ar_value_gtype (ArValueType type)
{
  switch (type) {
    case AR_VALUE_BOOLEAN: return G_TYPE_BOOLEAN;
    case AR_VALUE_INT: return G_TYPE_INT;
    case AR_VALUE_UINT: return G_TYPE_UINT;
    case AR_VALUE_INT64: return G_TYPE_INT64;
    case AR_VALUE_UINT64: return G_TYPE_UINT64;
    case AR_VALUE_DOUBLE: return G_TYPE_DOUBLE;
    case AR_VALUE_STRING: return G_TYPE_STRING;
    case AR_VALUE_POINTER: return G_TYPE_POINTER;
    case AR_VALUE_STRUCTURE: return GST_TYPE_STRUCTURE;
    case AR_VALUE_NONE: return G_TYPE_NONE;
    case AR_VALUE_ENUM: break;
  }
  return G_TYPE_INVALID;
}

static GType
register_enum (const ArPropertySpec * p)
{
  GType type = g_type_from_name (p->enum_type_name);
  if (type)
    return type;
  /* Zero-terminated copy; lives as long as the type, i.e. the process. */
  GEnumValue *values = g_new0 (GEnumValue, p->n_enum_values + 1);
  for (guint i = 0; i < p->n_enum_values; i++) {
    values[i].value = p->enum_values[i].value;
    values[i].value_name = p->enum_values[i].name;
    values[i].value_nick = p->enum_values[i].nick;
  }
  return g_enum_register_static (p->enum_type_name, values);
}

static GParamSpec *
make_pspec (const ArPropertySpec * p)
{
  GParamFlags flags = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      (p->mutable_in_playing ? GST_PARAM_MUTABLE_PLAYING : GST_PARAM_MUTABLE_READY);
  switch (p->type) {
    case AR_VALUE_BOOLEAN:
      return g_param_spec_boolean (p->name, p->nick, p->blurb, p->int_default != 0, flags);
    case AR_VALUE_INT:
      return g_param_spec_int (p->name, p->nick, p->blurb, (gint) p->int_min,
          (gint) p->int_max, (gint) p->int_default, flags);
    case AR_VALUE_UINT:
      return g_param_spec_uint (p->name, p->nick, p->blurb, (guint) p->int_min,
          (guint) p->int_max, (guint) p->int_default, flags);
    case AR_VALUE_INT64:
      return g_param_spec_int64 (p->name, p->nick, p->blurb, p->int_min, p->int_max,
          p->int_default, flags);
    case AR_VALUE_UINT64:
      return g_param_spec_uint64 (p->name, p->nick, p->blurb, (guint64) p->int_min,
          (guint64) p->int_max, (guint64) p->int_default, flags);
    case AR_VALUE_DOUBLE:
      return g_param_spec_double (p->name, p->nick, p->blurb, p->double_min, p->double_max,
          p->double_default, flags);
    case AR_VALUE_STRING:
      return g_param_spec_string (p->name, p->nick, p->blurb, p->string_default, flags);
    case AR_VALUE_ENUM:
      return g_param_spec_enum (p->name, p->nick, p->blurb, register_enum (p),
          (gint) p->int_default, flags);
    default:
      return NULL;
  }
}

/* ---- GObject vfuncs ---- */

static void
ar_set_property (GObject * object, guint prop_id, const GValue * value, GParamSpec * pspec)
{
  const ArElementSpec *spec = SPEC (object);
  if (prop_id == 0 || prop_id > spec->n_properties) {
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    return;
  }
  spec->vtable.set_property (AR_VIDEO_FILTER (object)->impl, prop_id - 1, value);
}

static void
ar_get_property (GObject * object, guint prop_id, GValue * value, GParamSpec * pspec)
{
  const ArElementSpec *spec = SPEC (object);
  if (prop_id == 0 || prop_id > spec->n_properties) {
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    return;
  }
  spec->vtable.get_property (AR_VIDEO_FILTER (object)->impl, prop_id - 1, value);
}

static void
ar_finalize (GObject * object)
{
  ArVideoFilter *self = AR_VIDEO_FILTER (object);
  if (self->impl)
    SPEC (object)->vtable.destroy (self->impl);
  self->impl = NULL;
  G_OBJECT_CLASS (PARENT_CLASS (object))->finalize (object);
}

/* ---- GstBaseTransform / GstVideoFilter vfuncs ---- */

static gboolean
ar_start (GstBaseTransform * trans)
{
  const ArElementSpec *spec = SPEC (trans);
  return spec->vtable.start ? spec->vtable.start (AR_VIDEO_FILTER (trans)->impl) : TRUE;
}

static gboolean
ar_stop (GstBaseTransform * trans)
{
  const ArElementSpec *spec = SPEC (trans);
  return spec->vtable.stop ? spec->vtable.stop (AR_VIDEO_FILTER (trans)->impl) : TRUE;
}

/* Refused caps: say which element, what it got and what it takes (GStreamer's own report is a
 * bare "not-negotiated" from upstream). An ERROR when the caps event arrives; a WARNING when
 * upstream only asked (accept-caps), since upstream then fails with its own error. */
static void
post_refused_caps (GstBaseTransform * trans, GstCaps * caps, GstMessageType type)
{
  GstCaps *accepted = gst_pad_get_pad_template_caps (GST_BASE_TRANSFORM_SINK_PAD (trans));
  gchar *got = gst_caps_to_string (caps);
  gchar *takes = gst_caps_to_string (accepted);
  gchar *text = g_strdup_printf ("%s cannot handle this video format: %s", GST_OBJECT_NAME (trans), got);
  gchar *debug = g_strdup_printf ("accepted caps: %s", takes);
  gst_element_message_full (GST_ELEMENT (trans), type, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
      text, debug, __FILE__, GST_FUNCTION, __LINE__);
  g_free (got);
  g_free (takes);
  gst_caps_unref (accepted);
}

static gboolean
ar_accept_caps (GstBaseTransform * trans, GstPadDirection direction, GstCaps * caps)
{
  gboolean ok = GST_BASE_TRANSFORM_CLASS (PARENT_CLASS (trans))->accept_caps (trans, direction, caps);
  if (!ok && direction == GST_PAD_SINK && gst_caps_is_fixed (caps)) {
    GstCaps *accepted = gst_pad_get_pad_template_caps (GST_BASE_TRANSFORM_SINK_PAD (trans));
    /* Only a format the element never takes is worth a message, not one refused downstream. */
    if (!gst_caps_can_intersect (caps, accepted))
      post_refused_caps (trans, caps, GST_MESSAGE_WARNING);
    gst_caps_unref (accepted);
  }
  return ok;
}

static gboolean
ar_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  const ArElementSpec *spec = SPEC (trans);
  if (GST_EVENT_TYPE (event) == GST_EVENT_CAPS) {
    GstCaps *caps, *accepted;
    gboolean ok;
    gst_event_parse_caps (event, &caps);
    accepted = gst_pad_get_pad_template_caps (GST_BASE_TRANSFORM_SINK_PAD (trans));
    ok = gst_caps_can_intersect (caps, accepted);
    gst_caps_unref (accepted);
    if (!ok) {
      post_refused_caps (trans, caps, GST_MESSAGE_ERROR);
      gst_event_unref (event);
      return FALSE;
    }
  }
  if (spec->vtable.sink_event
      && !spec->vtable.sink_event (AR_VIDEO_FILTER (trans)->impl, event)) {
    gst_event_unref (event);
    return TRUE;
  }
  return GST_BASE_TRANSFORM_CLASS (PARENT_CLASS (trans))->sink_event (trans, event);
}

static gboolean
ar_src_event (GstBaseTransform * trans, GstEvent * event)
{
  const ArElementSpec *spec = SPEC (trans);
  if (spec->vtable.src_event
      && !spec->vtable.src_event (AR_VIDEO_FILTER (trans)->impl, event)) {
    gst_event_unref (event);
    return TRUE;
  }
  return GST_BASE_TRANSFORM_CLASS (PARENT_CLASS (trans))->src_event (trans, event);
}

static gboolean
ar_query (GstBaseTransform * trans, GstPadDirection direction, GstQuery * query)
{
  const ArElementSpec *spec = SPEC (trans);
  if (spec->vtable.query && spec->vtable.query (AR_VIDEO_FILTER (trans)->impl, direction, query))
    return TRUE;
  return GST_BASE_TRANSFORM_CLASS (PARENT_CLASS (trans))->query (trans, direction, query);
}

static gboolean
ar_set_info (GstVideoFilter * filter, GstCaps * incaps, GstVideoInfo * in_info,
    GstCaps * outcaps, GstVideoInfo * out_info)
{
  const ArElementSpec *spec = SPEC (filter);
  (void) outcaps;
  (void) out_info;
  return spec->vtable.set_info ?
      spec->vtable.set_info (AR_VIDEO_FILTER (filter)->impl, incaps, in_info) : TRUE;
}

static GstFlowReturn
ar_transform_ip (GstBaseTransform * trans, GstBuffer * buf)
{
  GstVideoFilter *filter = GST_VIDEO_FILTER (trans);
  const ArElementSpec *spec = SPEC (trans);
  GstVideoFrame frame;
  GstFlowReturn ret;
  /* NO_REF keeps the buffer writable, so Swift may add or remove metas. */
  GstMapFlags flags = GST_MAP_READ | GST_VIDEO_FRAME_MAP_FLAG_NO_REF;

  if (!filter->negotiated) {
    GST_ELEMENT_ERROR (trans, CORE, NEGOTIATION, (NULL), ("buffer before caps were negotiated"));
    return GST_FLOW_NOT_NEGOTIATED;
  }
  if (spec->writes_frame)
    flags |= GST_MAP_WRITE;
  if (!gst_video_frame_map (&frame, &filter->in_info, buf, flags)) {
    GST_ELEMENT_ERROR (trans, STREAM, FORMAT, ("Invalid video buffer received"),
        ("buffer of %" G_GSIZE_FORMAT " bytes does not match the negotiated %s %dx%d",
            gst_buffer_get_size (buf),
            gst_video_format_to_string (GST_VIDEO_INFO_FORMAT (&filter->in_info)),
            GST_VIDEO_INFO_WIDTH (&filter->in_info), GST_VIDEO_INFO_HEIGHT (&filter->in_info)));
    return GST_FLOW_ERROR;
  }
  ret = spec->vtable.transform_frame (AR_VIDEO_FILTER (trans)->impl, buf, &frame);
  gst_video_frame_unmap (&frame);
  return ret;
}

/* ---- type registration ---- */

static void
ar_class_init (gpointer g_class, gpointer class_data)
{
  const ArElementSpec *spec = class_data;
  GObjectClass *gobject_class = G_OBJECT_CLASS (g_class);
  GstElementClass *element_class = GST_ELEMENT_CLASS (g_class);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (g_class);
  GstVideoFilterClass *filter_class = GST_VIDEO_FILTER_CLASS (g_class);
  ArVideoFilterClass *klass = g_class;

  klass->spec = spec;
  gobject_class->set_property = ar_set_property;
  gobject_class->get_property = ar_get_property;
  gobject_class->finalize = ar_finalize;

  for (guint i = 0; i < spec->n_properties; i++) {
    GParamSpec *pspec = make_pspec (&spec->properties[i]);
    g_assert (pspec != NULL);
    g_object_class_install_property (gobject_class, i + 1, pspec);
  }

  klass->signal_ids = g_new0 (guint, spec->n_signals + 1);
  for (guint i = 0; i < spec->n_signals; i++) {
    const ArSignalSpec *s = &spec->signals[i];
    GType *types = g_new0 (GType, s->n_params + 1);
    for (guint j = 0; j < s->n_params; j++)
      types[j] = ar_value_gtype (s->param_types[j]);
    klass->signal_ids[i] = g_signal_newv (s->name, G_TYPE_FROM_CLASS (g_class),
        G_SIGNAL_RUN_LAST, NULL, NULL, NULL, NULL, ar_value_gtype (s->return_type),
        s->n_params, types);
    g_free (types);
  }

  gst_element_class_set_static_metadata (element_class, spec->long_name, spec->klass,
      spec->description, spec->author);
  gst_element_class_add_pad_template (element_class,
      gst_pad_template_new ("sink", GST_PAD_SINK, GST_PAD_ALWAYS,
          gst_caps_from_string (spec->sink_caps)));
  gst_element_class_add_pad_template (element_class,
      gst_pad_template_new ("src", GST_PAD_SRC, GST_PAD_ALWAYS,
          gst_caps_from_string (spec->src_caps)));

  trans_class->start = ar_start;
  trans_class->stop = ar_stop;
  trans_class->sink_event = ar_sink_event;
  trans_class->accept_caps = ar_accept_caps;
  trans_class->src_event = ar_src_event;
  trans_class->query = ar_query;
  trans_class->transform_ip = ar_transform_ip;
  trans_class->transform_ip_on_passthrough = FALSE;
  filter_class->set_info = ar_set_info;
  filter_class->transform_frame_ip = NULL;
  filter_class->transform_frame = NULL;
}

static void
ar_instance_init (GTypeInstance * instance, gpointer g_class)
{
  const ArElementSpec *spec = ((ArVideoFilterClass *) g_class)->spec;
  /* In place, never passthrough: the buffer is made writable (a cheap copy of the buffer
   * structure when shared, memory is not copied) so metas can be added. */
  gst_base_transform_set_in_place (GST_BASE_TRANSFORM (instance), TRUE);
  gst_base_transform_set_passthrough (GST_BASE_TRANSFORM (instance), FALSE);
  AR_VIDEO_FILTER (instance)->impl = spec->vtable.create (spec->class_data, GST_ELEMENT (instance));
}

gboolean
ar_element_register (GstPlugin * plugin, const ArElementSpec * spec)
{
  GType type = g_type_from_name (spec->type_name);
  if (!type) {
    GTypeInfo info = {
      .class_size = sizeof (ArVideoFilterClass),
      .class_init = ar_class_init,
      .class_data = spec,
      .instance_size = sizeof (ArVideoFilter),
      .instance_init = ar_instance_init,
    };
    g_return_val_if_fail (spec->base == AR_BASE_VIDEO_FILTER, FALSE);
    g_return_val_if_fail (spec->vtable.create && spec->vtable.destroy
        && spec->vtable.transform_frame, FALSE);
    g_return_val_if_fail (spec->n_properties == 0
        || (spec->vtable.get_property && spec->vtable.set_property), FALSE);
    type = g_type_register_static (GST_TYPE_VIDEO_FILTER, spec->type_name, &info, 0);
  }
  return gst_element_register (plugin, spec->factory_name, spec->rank, type);
}

void
ar_element_emit_signal (GstElement * element, guint signal_index, const GValue * params,
    guint n_params, GValue * return_value)
{
  ArVideoFilterClass *klass = AR_VIDEO_FILTER_GET_CLASS (element);
  GValue *args;

  g_return_if_fail (signal_index < klass->spec->n_signals);
  g_return_if_fail (n_params == klass->spec->signals[signal_index].n_params);
  args = g_newa (GValue, n_params + 1);
  memset (args, 0, sizeof (GValue) * (n_params + 1));
  g_value_init (&args[0], G_OBJECT_TYPE (element));
  g_value_set_object (&args[0], element);
  for (guint i = 0; i < n_params; i++)
    args[i + 1] = params[i];  /* shallow: the caller keeps ownership */
  g_signal_emitv (args, klass->signal_ids[signal_index], 0, return_value);
  g_value_unset (&args[0]);
}

void
ar_element_post_message (GstElement * element, GstMessageType type, GQuark domain, gint code,
    const gchar * text, const gchar * debug, const gchar * file, const gchar * function,
    gint line)
{
  gst_element_message_full (element, type, domain, code, g_strdup (text), g_strdup (debug),
      file, function, line);
}
