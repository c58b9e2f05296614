import ARGst
import CGStreamer

/// The plugin's element list: adding an element is one line here.
@_cdecl("ar_swift_plugin_init")
public func arSwiftPluginInit(_ plugin: OpaquePointer?) -> gboolean {
    guard let plugin else { return 0 }
    var ok = true
    ok = registerElement(BarcodeDetect.self, plugin: plugin) && ok
    ok = registerElement(Track.self, plugin: plugin) && ok
    ok = registerElement(BarcodeTrack.self, plugin: plugin) && ok
    ok = registerElement(Overlay.self, plugin: plugin) && ok
    ok = registerElement(Export.self, plugin: plugin) && ok
    return ok ? 1 : 0
}
