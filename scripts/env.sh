# Sourced by the scripts: puts Swift on PATH and points GStreamer at the freshly built plugin with
# a private registry, so an installed copy or a stale cache never stands in for it.
if ! command -v swift >/dev/null 2>&1; then export PATH="/opt/swift/usr/bin:$PATH"; fi
AR_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export AR_PLUGIN_DIR="$AR_ROOT/.build/release"
export GST_PLUGIN_PATH="$AR_PLUGIN_DIR${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"
export GST_REGISTRY="$AR_ROOT/.build/gst-registry.bin"
# Runs a swift command without SwiftPM's "prohibited flag(s): -pthread" lines: it drops glib's
# -pthread from pkg-config's flags (the link gets it anyway) and says so once per target.
quiet_swift() { "$@" 2>&1 | { grep -v "prohibited flag" || true; }; }
