#include <cairo-gobject.h>
