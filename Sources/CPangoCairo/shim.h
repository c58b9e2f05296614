#include <cairo.h>
#include <pango/pangocairo.h>
