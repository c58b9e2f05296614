/* Generic GObject/GStreamer glue for Swift elements: see arbridge.h. */
#include "arbridge.h"

#include <string.h>
#include <gst/base/gstpushsrc.h>

/* Instance structs, one per base class. The spec lives in the type's qdata, so class structs
 * are the parents' own. */
typedef struct {
  GstVideoFilter parent;
  gpointer impl;
} ArVideoFilter;

typedef struct {
  GstPushSrc parent;
  gpointer impl;
  GstVideoInfo info;
} ArVideoSource;

/* Per registered type: its spec and signal ids. */
typedef struct {
  const ArElementSpec *spec;
  guint *signal_ids;
} ArTypeData;

static GQuark type_data_quark;

static const ArTypeData *
type_data (gpointer obj)
{
  return g_type_get_qdata (G_OBJECT_TYPE (obj), type_data_quark);
}

#define SPEC(obj) (type_data (obj)->spec)

static gpointer *
impl_slot (gpointer obj, const ArElementSpec * spec)
{
  return spec->base == AR_BASE_VIDEO_SOURCE ?
      &((ArVideoSource *) obj)->impl : &((ArVideoFilter *) obj)->impl;
}

#define impl_of(obj) (*impl_slot (obj, SPEC (obj)))

#define PARENT_CLASS(obj) g_type_class_peek_parent (G_OBJECT_GET_CLASS (obj))

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
  }
  return G_TYPE_INVALID;
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
  spec->vtable.set_property (impl_of (object), prop_id - 1, value);
}

static void
ar_get_property (GObject * object, guint prop_id, GValue * value, GParamSpec * pspec)
{
  const ArElementSpec *spec = SPEC (object);
  if (prop_id == 0 || prop_id > spec->n_properties) {
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    return;
  }
  spec->vtable.get_property (impl_of (object), prop_id - 1, value);
}

static void
ar_finalize (GObject * object)
{
  gpointer *slot = impl_slot (object, SPEC (object));
  if (*slot)
    SPEC (object)->vtable.destroy (*slot);
  *slot = NULL;
  G_OBJECT_CLASS (PARENT_CLASS (object))->finalize (object);
}

/* ---- GstBaseTransform / GstVideoFilter vfuncs ---- */

/* start/stop have the same shape for GstBaseTransform and GstBaseSrc. */
static gboolean
ar_start (gpointer element)
{
  const ArElementSpec *spec = SPEC (element);
  return spec->vtable.start ? spec->vtable.start (impl_of (element)) : TRUE;
}

static gboolean
ar_stop (gpointer element)
{
  const ArElementSpec *spec = SPEC (element);
  return spec->vtable.stop ? spec->vtable.stop (impl_of (element)) : TRUE;
}

/* A fixed format the sink template never takes (not one refused downstream): Swift names it in a
 * WARNING, since GStreamer's own report is a bare "not-negotiated" from upstream. GStreamer asks
 * this before every caps event, so a refused format never reaches sink_event. */
static gboolean
ar_accept_caps (GstBaseTransform * trans, GstPadDirection direction, GstCaps * caps)
{
  gboolean ok = GST_BASE_TRANSFORM_CLASS (PARENT_CLASS (trans))->accept_caps (trans, direction, caps);
  const ArElementSpec *spec = SPEC (trans);
  if (!ok && direction == GST_PAD_SINK && gst_caps_is_fixed (caps) && spec->vtable.refused_caps) {
    GstCaps *accepted = gst_pad_get_pad_template_caps (GST_BASE_TRANSFORM_SINK_PAD (trans));
    if (!gst_caps_can_intersect (caps, accepted))
      spec->vtable.refused_caps (impl_of (trans), caps, accepted);
    gst_caps_unref (accepted);
  }
  return ok;
}

static gboolean
ar_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  const ArElementSpec *spec = SPEC (trans);
  if (spec->vtable.sink_event
      && !spec->vtable.sink_event (impl_of (trans), event)) {
    gst_event_unref (event);
    return TRUE;
  }
  return GST_BASE_TRANSFORM_CLASS (PARENT_CLASS (trans))->sink_event (trans, event);
}

static GstCaps *
ar_transform_caps (GstBaseTransform * trans, GstPadDirection direction, GstCaps * caps,
    GstCaps * filter)
{
  const ArElementSpec *spec = SPEC (trans);
  GstCaps *result = spec->vtable.transform_caps ?
      spec->vtable.transform_caps (impl_of (trans), direction, caps, filter) : NULL;
  if (result)
    return result;
  return GST_BASE_TRANSFORM_CLASS (PARENT_CLASS (trans))->transform_caps (trans, direction,
      caps, filter);
}

static gboolean
ar_src_event (GstBaseTransform * trans, GstEvent * event)
{
  const ArElementSpec *spec = SPEC (trans);
  if (spec->vtable.src_event
      && !spec->vtable.src_event (impl_of (trans), event)) {
    gst_event_unref (event);
    return TRUE;
  }
  return GST_BASE_TRANSFORM_CLASS (PARENT_CLASS (trans))->src_event (trans, event);
}

static gboolean
ar_query (GstBaseTransform * trans, GstPadDirection direction, GstQuery * query)
{
  const ArElementSpec *spec = SPEC (trans);
  if (spec->vtable.query && spec->vtable.query (impl_of (trans), direction, query))
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
      spec->vtable.set_info (impl_of (filter), incaps, in_info) : TRUE;
}

/* In place while both pads carry the same format; otherwise each buffer is converted into a new
 * output buffer (ar_transform). Decided after GstVideoFilter's set_caps, which makes a filter
 * without transform_frame always in place. */
static gboolean
ar_set_caps (GstBaseTransform * trans, GstCaps * incaps, GstCaps * outcaps)
{
  GstVideoFilter *filter = GST_VIDEO_FILTER (trans);
  if (!GST_BASE_TRANSFORM_CLASS (PARENT_CLASS (trans))->set_caps (trans, incaps, outcaps))
    return FALSE;
  gst_base_transform_set_in_place (trans,
      gst_video_info_is_equal (&filter->in_info, &filter->out_info));
  return TRUE;
}

/* GstVideoFilter's own transform functions make the same check. */
static gboolean
negotiated (GstBaseTransform * trans)
{
  if (GST_VIDEO_FILTER (trans)->negotiated)
    return TRUE;
  GST_ELEMENT_ERROR (trans, CORE, NEGOTIATION, (NULL), ("buffer before caps were negotiated"));
  return FALSE;
}

static gboolean
map_frame (GstBaseTransform * trans, GstVideoFrame * frame, GstVideoInfo * info, GstBuffer * buf,
    GstMapFlags flags)
{
  if (gst_video_frame_map (frame, info, buf, flags))
    return TRUE;
  GST_ELEMENT_ERROR (trans, STREAM, FORMAT, ("Invalid video buffer received"),
      ("buffer of %" G_GSIZE_FORMAT " bytes does not match the negotiated %s %dx%d",
          gst_buffer_get_size (buf), gst_video_format_to_string (GST_VIDEO_INFO_FORMAT (info)),
          GST_VIDEO_INFO_WIDTH (info), GST_VIDEO_INFO_HEIGHT (info)));
  return FALSE;
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

  if (!negotiated (trans))
    return GST_FLOW_NOT_NEGOTIATED;
  if (spec->writes_frame)
    flags |= GST_MAP_WRITE;
  if (!map_frame (trans, &frame, &filter->in_info, buf, flags))
    return GST_FLOW_ERROR;
  ret = spec->vtable.transform_frame (impl_of (trans), buf, &frame);
  gst_video_frame_unmap (&frame);
  return ret;
}

static GstCaps *
ar_fixate_caps (GstBaseTransform * trans, GstPadDirection direction, GstCaps * caps,
    GstCaps * othercaps)
{
  const ArElementSpec *spec = SPEC (trans);
  if (direction == GST_PAD_SINK && spec->vtable.fixate)
    return spec->vtable.fixate (impl_of (trans), othercaps);
  return GST_BASE_TRANSFORM_CLASS (PARENT_CLASS (trans))->fixate_caps (trans, direction, caps,
      othercaps);
}

/* Not in place (the formats differ, see ar_set_caps): the output buffer already carries the
 * input's timestamps and metas (GstBaseTransform copied them). */
static GstFlowReturn
ar_transform (GstBaseTransform * trans, GstBuffer * inbuf, GstBuffer * outbuf)
{
  GstVideoFilter *filter = GST_VIDEO_FILTER (trans);
  const ArElementSpec *spec = SPEC (trans);
  GstVideoFrame in, out;
  GstFlowReturn ret;

  if (!negotiated (trans))
    return GST_FLOW_NOT_NEGOTIATED;
  if (!map_frame (trans, &in, &filter->in_info, inbuf, GST_MAP_READ))
    return GST_FLOW_ERROR;
  if (!map_frame (trans, &out, &filter->out_info, outbuf,
          GST_MAP_READWRITE | GST_VIDEO_FRAME_MAP_FLAG_NO_REF)) {
    gst_video_frame_unmap (&in);
    return GST_FLOW_ERROR;
  }
  ret = spec->vtable.convert_frame (impl_of (trans), &in, &out);
  gst_video_frame_unmap (&in);
  if (ret == GST_FLOW_OK)
    ret = spec->vtable.transform_frame (impl_of (trans), outbuf, &out);
  gst_video_frame_unmap (&out);
  return ret;
}

/* ---- GstPushSrc vfuncs (AR_BASE_VIDEO_SOURCE) ---- */

static GstCaps *
ar_src_fixate (GstBaseSrc * src, GstCaps * caps)
{
  const ArElementSpec *spec = SPEC (src);
  if (spec->vtable.fixate)
    return spec->vtable.fixate (impl_of (src), caps);
  return GST_BASE_SRC_CLASS (PARENT_CLASS (src))->fixate (src, caps);
}

static gboolean
ar_src_set_caps (GstBaseSrc * src, GstCaps * caps)
{
  ArVideoSource *self = (ArVideoSource *) src;
  const ArElementSpec *spec = SPEC (src);
  GstVideoInfo info;
  if (!gst_video_info_from_caps (&info, caps)) {
    GST_ELEMENT_ERROR (src, CORE, NEGOTIATION, (NULL), ("invalid caps %" GST_PTR_FORMAT, caps));
    return FALSE;
  }
  self->info = info;
  return spec->vtable.set_info ? spec->vtable.set_info (self->impl, caps, &self->info) : TRUE;
}

/* A video buffer pool sized for the negotiated frames, like videotestsrc. */
static gboolean
ar_src_decide_allocation (GstBaseSrc * src, GstQuery * query)
{
  ArVideoSource *self = (ArVideoSource *) src;
  GstBufferPool *pool = NULL;
  GstStructure *config;
  GstCaps *caps;
  guint size = self->info.size, min = 0, max = 0;
  gboolean update = gst_query_get_n_allocation_pools (query) > 0;

  if (update) {
    gst_query_parse_nth_allocation_pool (query, 0, &pool, &size, &min, &max);
    size = MAX (size, self->info.size);
  }
  if (pool == NULL)
    pool = gst_video_buffer_pool_new ();
  gst_query_parse_allocation (query, &caps, NULL);
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, caps, size, min, max);
  if (gst_query_find_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL))
    gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  gst_buffer_pool_set_config (pool, config);
  if (update)
    gst_query_set_nth_allocation_pool (query, 0, pool, size, min, max);
  else
    gst_query_add_allocation_pool (query, pool, size, min, max);
  gst_object_unref (pool);
  return GST_BASE_SRC_CLASS (PARENT_CLASS (src))->decide_allocation (src, query);
}

static GstFlowReturn
ar_src_fill (GstPushSrc * push, GstBuffer * buf)
{
  ArVideoSource *self = (ArVideoSource *) push;
  GstVideoFrame frame;
  GstFlowReturn ret;
  if (GST_VIDEO_INFO_FORMAT (&self->info) == GST_VIDEO_FORMAT_UNKNOWN)
    return GST_FLOW_NOT_NEGOTIATED;
  if (!gst_video_frame_map (&frame, &self->info, buf, GST_MAP_READWRITE | GST_VIDEO_FRAME_MAP_FLAG_NO_REF)) {
    GST_ELEMENT_ERROR (push, RESOURCE, WRITE, (NULL), ("could not map the output buffer"));
    return GST_FLOW_ERROR;
  }
  ret = SPEC (push)->vtable.transform_frame (self->impl, buf, &frame);
  gst_video_frame_unmap (&frame);
  return ret;
}

/* Live sources are synchronised on their buffers' timestamps. */
static void
ar_src_get_times (GstBaseSrc * src, GstBuffer * buffer, GstClockTime * start, GstClockTime * end)
{
  *start = GST_CLOCK_TIME_NONE;
  *end = GST_CLOCK_TIME_NONE;
  if (gst_base_src_is_live (src) && GST_BUFFER_PTS_IS_VALID (buffer)) {
    *start = GST_BUFFER_PTS (buffer);
    if (GST_BUFFER_DURATION_IS_VALID (buffer))
      *end = *start + GST_BUFFER_DURATION (buffer);
  }
}

static gboolean
ar_src_query (GstBaseSrc * src, GstQuery * query)
{
  const ArElementSpec *spec = SPEC (src);
  if (spec->vtable.query && spec->vtable.query (impl_of (src), GST_PAD_SRC, query))
    return TRUE;
  return GST_BASE_SRC_CLASS (PARENT_CLASS (src))->query (src, query);
}

/* ---- action signals ---- */

typedef struct {
  GClosure closure;
  guint signal_index;
} ArActionClosure;

static void
ar_action_marshal (GClosure * closure, GValue * return_value, guint n_param_values,
    const GValue * param_values, gpointer invocation_hint, gpointer marshal_data)
{
  gpointer element = g_value_get_object (&param_values[0]);
  const ArElementSpec *spec = SPEC (element);
  (void) invocation_hint;
  (void) marshal_data;
  if (spec->vtable.action)
    spec->vtable.action (impl_of (element), ((ArActionClosure *) closure)->signal_index,
        param_values + 1, n_param_values - 1, return_value);
}

static GClosure *
action_closure (guint signal_index)
{
  GClosure *closure = g_closure_new_simple (sizeof (ArActionClosure), NULL);
  ((ArActionClosure *) closure)->signal_index = signal_index;
  g_closure_set_marshal (closure, ar_action_marshal);
  return closure;
}

/* ---- type registration ---- */

static void
add_pad_template (GstElementClass * element_class, const gchar * name, GstPadDirection direction,
    const gchar * caps_string)
{
  GstCaps *caps = gst_caps_from_string (caps_string);
  g_assert (caps != NULL);
  /* The template takes its own reference. */
  gst_element_class_add_pad_template (element_class,
      gst_pad_template_new (name, direction, GST_PAD_ALWAYS, caps));
  gst_caps_unref (caps);
}

static void
install_pad_templates (GstElementClass * element_class, const ArElementSpec * spec)
{
  if (spec->base == AR_BASE_VIDEO_FILTER)
    add_pad_template (element_class, "sink", GST_PAD_SINK, spec->sink_caps);
  add_pad_template (element_class, "src", GST_PAD_SRC, spec->src_caps);
}

static void
ar_class_init (gpointer g_class, gpointer class_data)
{
  const ArElementSpec *spec = class_data;
  GObjectClass *gobject_class = G_OBJECT_CLASS (g_class);
  GstElementClass *element_class = GST_ELEMENT_CLASS (g_class);
  ArTypeData *data = g_new0 (ArTypeData, 1);

  data->spec = spec;
  g_type_set_qdata (G_TYPE_FROM_CLASS (g_class), type_data_quark, data);
  gobject_class->set_property = ar_set_property;
  gobject_class->get_property = ar_get_property;
  gobject_class->finalize = ar_finalize;

  for (guint i = 0; i < spec->n_properties; i++)
    g_object_class_install_property (gobject_class, i + 1, spec->properties[i]);

  data->signal_ids = g_new0 (guint, spec->n_signals + 1);
  for (guint i = 0; i < spec->n_signals; i++) {
    const ArSignalSpec *s = &spec->signals[i];
    data->signal_ids[i] = g_signal_newv (s->name, G_TYPE_FROM_CLASS (g_class),
        G_SIGNAL_RUN_LAST | (s->is_action ? G_SIGNAL_ACTION : 0),
        s->is_action ? action_closure (i) : NULL, NULL, NULL, NULL,
        s->return_type, s->n_params, (GType *) s->param_types);
  }

  gst_element_class_set_static_metadata (element_class, spec->long_name, spec->klass,
      spec->description, spec->author);
  install_pad_templates (element_class, spec);

  if (spec->base == AR_BASE_VIDEO_SOURCE) {
    GstBaseSrcClass *src_class = GST_BASE_SRC_CLASS (g_class);
    src_class->start = (gboolean (*)(GstBaseSrc *)) ar_start;
    src_class->stop = (gboolean (*)(GstBaseSrc *)) ar_stop;
    src_class->fixate = ar_src_fixate;
    src_class->set_caps = ar_src_set_caps;
    src_class->decide_allocation = ar_src_decide_allocation;
    src_class->get_times = ar_src_get_times;
    src_class->query = ar_src_query;
    GST_PUSH_SRC_CLASS (g_class)->fill = ar_src_fill;
  } else {
    GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (g_class);
    GstVideoFilterClass *filter_class = GST_VIDEO_FILTER_CLASS (g_class);
    trans_class->start = (gboolean (*)(GstBaseTransform *)) ar_start;
    trans_class->stop = (gboolean (*)(GstBaseTransform *)) ar_stop;
    trans_class->sink_event = ar_sink_event;
    trans_class->accept_caps = ar_accept_caps;
    trans_class->src_event = ar_src_event;
    trans_class->query = ar_query;
    trans_class->transform_caps = ar_transform_caps;
    trans_class->transform_ip = ar_transform_ip;
    trans_class->transform = ar_transform;
    trans_class->set_caps = ar_set_caps;
    trans_class->fixate_caps = ar_fixate_caps;
    trans_class->transform_ip_on_passthrough = FALSE;
    filter_class->set_info = ar_set_info;
    filter_class->transform_frame_ip = NULL;
    filter_class->transform_frame = NULL;
  }
}

static void
ar_instance_init (GTypeInstance * instance, gpointer g_class)
{
  const ArTypeData *data = g_type_get_qdata (G_TYPE_FROM_CLASS (g_class), type_data_quark);
  const ArElementSpec *spec = data->spec;
  if (spec->base == AR_BASE_VIDEO_SOURCE) {
    gst_video_info_init (&((ArVideoSource *) instance)->info);
    gst_base_src_set_format (GST_BASE_SRC (instance), GST_FORMAT_TIME);
  } else {
    /* In place, never passthrough: the buffer is made writable (a cheap copy of the buffer
     * structure when shared, memory is not copied) so metas can be added. */
    gst_base_transform_set_in_place (GST_BASE_TRANSFORM (instance), TRUE);
    gst_base_transform_set_passthrough (GST_BASE_TRANSFORM (instance), FALSE);
  }
  *impl_slot (instance, spec) = spec->vtable.create (spec->class_data, GST_ELEMENT (instance));
}

gboolean
ar_element_register (GstPlugin * plugin, const ArElementSpec * spec)
{
  GType type = g_type_from_name (spec->type_name);
  if (!type_data_quark)
    type_data_quark = g_quark_from_static_string ("arbridge-type-data");
  if (!type) {
    gboolean source = spec->base == AR_BASE_VIDEO_SOURCE;
    GTypeInfo info = {
      .class_size = source ? sizeof (GstPushSrcClass) : sizeof (GstVideoFilterClass),
      .class_init = ar_class_init,
      .class_data = spec,
      .instance_size = source ? sizeof (ArVideoSource) : sizeof (ArVideoFilter),
      .instance_init = ar_instance_init,
    };
    g_return_val_if_fail (spec->base == AR_BASE_VIDEO_FILTER || source, FALSE);
    g_return_val_if_fail (spec->vtable.create && spec->vtable.destroy
        && spec->vtable.transform_frame && (source || spec->vtable.convert_frame), FALSE);
    g_return_val_if_fail (spec->n_properties == 0
        || (spec->vtable.get_property && spec->vtable.set_property), FALSE);
    type = g_type_register_static (source ? GST_TYPE_PUSH_SRC : GST_TYPE_VIDEO_FILTER,
        spec->type_name, &info, 0);
  }
  return gst_element_register (plugin, spec->factory_name, spec->rank, type);
}

void
ar_element_emit_signal (GstElement * element, guint signal_index, const GValue * params,
    guint n_params, GValue * return_value)
{
  const ArTypeData *data = type_data (element);
  GValue *args;

  g_return_if_fail (signal_index < data->spec->n_signals);
  g_return_if_fail (n_params == data->spec->signals[signal_index].n_params);
  args = g_newa (GValue, n_params + 1);
  memset (args, 0, sizeof (GValue) * (n_params + 1));
  g_value_init (&args[0], G_OBJECT_TYPE (element));
  g_value_set_object (&args[0], element);
  for (guint i = 0; i < n_params; i++)
    args[i + 1] = params[i];  /* shallow: the caller keeps ownership */
  g_signal_emitv (args, data->signal_ids[signal_index], 0, return_value);
  g_value_unset (&args[0]);
}
