import ARCore
import ARGst
import ARRender
import CGStreamer
import Foundation

private let cat = DebugCategory("aroverlay", description: "arbarcode AR overlay compositor")

/// `aroverlay`: draws each tracked code's outline and text, anchored to the code, from the ROI
/// metas upstream. Only the overlay rectangles are drawn (cairo/pango, premultiplied ARGB) and
/// blended into the frame by GStreamer's overlay composition, which handles every raw format.
public final class ArOverlay: VideoFilterElement {
    public struct Settings {
        var font: String? = "Sans Bold"
        var outlineWidth = 3.0
        var showLabels = true
    }

    public static let defaultSettings = Settings()

    public static let metadata = ElementMetadata(
        factoryName: "aroverlay", typeName: "ArOverlay", longName: "Barcode AR overlay",
        klass: "Filter/Editor/Video",
        description: "Draws an outline and the decoded text over every tracked code",
        caps: "video/x-raw", writesFrame: true)

    public static let properties: [Property<Settings>] = [
        .string("font", "Font", "Pango font description of labels (family and style; the size follows the frame height)",
                \.font),
        .double("outline-width", "Outline width", "Width of the code outline, pixels", \.outlineWidth, range: 0...100),
        .bool("show-labels", "Show labels", "Draw each code's decoded text above it", \.showLabels),
    ]

    private let element: ElementHandle
    private let settings: SettingsStore<Settings>
    private var renderer: OverlayRenderer?

    public init(element: ElementHandle, settings: SettingsStore<Settings>) {
        self.element = element
        self.settings = settings
    }

    public func start() throws {
        renderer = OverlayRenderer()
    }

    public func stop() {
        renderer = nil
    }

    public func transform(_ frame: VideoFrame) throws {
        guard let renderer else { return }
        let s = settings.snapshot
        renderer.fontDescription = s.font ?? "Sans Bold"
        let items = frame.barcodeRegions.filter { $0.state != .lost }.map { r in
            OverlayItem(quad: r.quad, label: s.showLabels ? Self.labelText(r.text) : "", outlineWidth: s.outlineWidth)
        }
        guard !items.isEmpty else { return }
        guard let composition = OverlayComposition.make(items: items, renderer: renderer, frameWidth: frame.width,
                                                        frameHeight: frame.height) else { return }
        defer { composition.release() }
        if !composition.blend(into: frame) {
            throw ElementError.format("aroverlay could not blend into \(String(cString: gst_video_format_to_string(frame.format))) frames")
        }
        cat.log(.log, element.object, "drew \(items.count) overlays")
    }

    /// A label shows at most 48 characters of the payload, on one line.
    static func labelText(_ text: String) -> String {
        let oneLine = text.replacingOccurrences(of: "\r\n", with: " ").replacingOccurrences(of: "\n", with: " ")
        return oneLine.count > 48 ? String(oneLine.prefix(47)) + "…" : oneLine
    }
}

/// A GstVideoOverlayComposition of one premultiplied-ARGB rectangle per overlay item.
struct OverlayComposition {
    let pointer: OpaquePointer

    static func make(items: [OverlayItem], renderer: OverlayRenderer, frameWidth: Int, frameHeight: Int) -> OverlayComposition? {
        var composition: OpaquePointer?
        for item in items {
            let tile = renderer.tile(for: item, frameHeight: frameHeight)
            // Tiles wholly outside the frame draw nothing.
            guard tile.x < frameWidth, tile.y < frameHeight, tile.x + tile.width > 0, tile.y + tile.height > 0 else { continue }
            let stride = tile.width * 4
            let buffer = gst_buffer_new_allocate(nil, gsize(stride * tile.height), nil)!
            var map = GstMapInfo()
            guard gst_buffer_map(buffer, &map, GstMapFlags(rawValue: 2) /* GST_MAP_WRITE */) != 0 else {
                gst_mini_object_unref(UnsafeMutableRawPointer(buffer).assumingMemoryBound(to: GstMiniObject.self))
                continue
            }
            renderer.draw(item, tile: tile, into: map.data, stride: stride, frameHeight: frameHeight)
            gst_buffer_unmap(buffer, &map)
            var strides: [gint] = [gint(stride), 0, 0, 0]
            var offsets: [gsize] = [0, 0, 0, 0]
            _ = gst_buffer_add_video_meta_full(buffer, GST_VIDEO_FRAME_FLAG_NONE, overlayFormat, guint(tile.width),
                                               guint(tile.height), 1, &offsets, &strides)
            let rect = gst_video_overlay_rectangle_new_raw(buffer, gint(tile.x), gint(tile.y), guint(tile.width),
                                                           guint(tile.height), GST_VIDEO_OVERLAY_FORMAT_FLAG_PREMULTIPLIED_ALPHA)
            gst_mini_object_unref(UnsafeMutableRawPointer(buffer).assumingMemoryBound(to: GstMiniObject.self))
            if let c = composition {
                gst_video_overlay_composition_add_rectangle(c, rect)
            } else {
                composition = gst_video_overlay_composition_new(rect)
            }
            gst_mini_object_unref(UnsafeMutableRawPointer(rect!).assumingMemoryBound(to: GstMiniObject.self))
        }
        return composition.map(OverlayComposition.init(pointer:))
    }

    /// Cairo's ARGB32 in memory: BGRA on little-endian machines, ARGB on big-endian.
    static var overlayFormat: GstVideoFormat {
        1.littleEndian == 1 ? GST_VIDEO_FORMAT_BGRA : GST_VIDEO_FORMAT_ARGB
    }

    func blend(into frame: VideoFrame) -> Bool {
        gst_video_overlay_composition_blend(pointer, frame.raw) != 0
    }

    func release() {
        gst_mini_object_unref(UnsafeMutableRawPointer(pointer).assumingMemoryBound(to: GstMiniObject.self))
    }
}
