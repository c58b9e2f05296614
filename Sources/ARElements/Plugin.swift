import ARGst
import CGStreamer

/// The plugin's element list: adding an element is one line here.
@_cdecl("ar_swift_plugin_init")
public func arSwiftPluginInit(_ plugin: OpaquePointer?) -> gboolean {
    guard let plugin else { return 0 }
    var ok = true
    ok = registerElement(ArBarcodeDetect.self, plugin: plugin) && ok
    ok = registerElement(ArTrack.self, plugin: plugin) && ok
    ok = registerElement(ArBarcodeTrack.self, plugin: plugin) && ok
    ok = registerElement(ArOverlay.self, plugin: plugin) && ok
    ok = registerElement(ArExport.self, plugin: plugin) && ok
    ok = registerElement(ArStamp.self, plugin: plugin) && ok
    ok = registerElement(ArCodeSrc.self, plugin: plugin) && ok
    ok = registerElement(ArRectTrack.self, plugin: plugin) && ok
    return ok ? 1 : 0
}
