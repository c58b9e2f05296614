// swift-tools-version:6.0
import PackageDescription

/// Module graph (arrows point at dependencies):
///
///   ARElements ──▶ ARGst ──▶ CGStreamer, ARBridge (plugin/)
///       │──▶ ARLines
///       │──▶ ARMQTT ──▶ CMosquitto, ARLines
///       │──▶ ARDetect ──▶ CZBar, ARCore
///       │──▶ ARVision ──▶ ARCore
///       │──▶ CGstApp (aroverlay's picture alterations)
///       │──▶ ARRender ──▶ CPangoCairo, ARStyle ──▶ ARCore
///       │──▶ CCairoGObject, COSShim
///       └──▶ ARCodeGen ──▶ CQREncode, ARCore
///
/// ARCore, ARVision, ARStyle and ARLines are pure Swift (geometry, tracking, decode scheduling, JSON
/// records, image motion, overlay styles and layout, JSON Lines destinations): no GStreamer, no C.
let package = Package(
    name: "arbarcode",
    products: [
        // The GStreamer plugin: libgstarbarcode.so.
        .library(name: "gstarbarcode", type: .dynamic, targets: ["ARElements"]),
        .executable(name: "arclip", targets: ["arclip"]),
        .executable(name: "arbench", targets: ["arbench"]),
        .executable(name: "arserve", targets: ["arserve"]),
    ],
    dependencies: [
        // A small HTTP and WebSocket server on Swift concurrency (arserve --http).
        .package(url: "https://github.com/swhitty/FlyingFox", exact: "0.27.1"),
    ],
    targets: [
        // System libraries, found with pkg-config.
        .systemLibrary(name: "CGStreamer", pkgConfig: "gstreamer-video-1.0",
                       providers: [.apt(["libgstreamer1.0-dev", "libgstreamer-plugins-base1.0-dev"])]),
        .systemLibrary(name: "CGstCheck", pkgConfig: "gstreamer-check-1.0",
                       providers: [.apt(["libgstreamer1.0-dev"])]),
        .systemLibrary(name: "CGstApp", pkgConfig: "gstreamer-app-1.0",
                       providers: [.apt(["libgstreamer-plugins-base1.0-dev"])]),
        .systemLibrary(name: "CZBar", pkgConfig: "zbar", providers: [.apt(["libzbar-dev"])]),
        .systemLibrary(name: "CPangoCairo", pkgConfig: "pangocairo",
                       providers: [.apt(["libpango1.0-dev", "libcairo2-dev"])]),
        // GTypes of cairo's objects (CairoContext: the `draw` signal's cairo_t, as bindings see it).
        .systemLibrary(name: "CCairoGObject", pkgConfig: "cairo-gobject", providers: [.apt(["libcairo2-dev"])]),
        .systemLibrary(name: "CQREncode", pkgConfig: "libqrencode", providers: [.apt(["libqrencode-dev"])]),
        // SVG icons for aroverlay (rendered with cairo).
        .systemLibrary(name: "CRsvg", pkgConfig: "librsvg-2.0", providers: [.apt(["librsvg2-dev"])]),
        .systemLibrary(name: "CGstRtspServer", pkgConfig: "gstreamer-rtsp-server-1.0",
                       providers: [.apt(["libgstrtspserver-1.0-dev"])]),
        // webrtcbin's API (session descriptions, transceivers) and SDP text, for arserve's WebRTC viewers.
        .systemLibrary(name: "CGstWebRTC", pkgConfig: "gstreamer-webrtc-1.0",
                       providers: [.apt(["libgstreamer-plugins-bad1.0-dev"])]),
        .systemLibrary(name: "CGstSdp", pkgConfig: "gstreamer-sdp-1.0",
                       providers: [.apt(["libgstreamer-plugins-base1.0-dev"])]),
        .systemLibrary(name: "CMosquitto", pkgConfig: "libmosquitto", providers: [.apt(["libmosquitto-dev"])]),

        // The C bridge: GObject/GStreamer boilerplate, generic and table-driven.
        .target(name: "ARBridge", dependencies: ["CGStreamer"], path: "plugin",
                publicHeadersPath: "include"),

        // OS helpers Swift cannot call directly (thread id and name): no GStreamer.
        .target(name: "COSShim"),

        // Pure Swift logic.
        .target(name: "ARCore"),
        // Swift face of GStreamer: element base, properties, metas, logging.
        .target(name: "ARGst", dependencies: ["CGStreamer", "ARBridge", "ARCore"]),
        // zbar-based decoding on luma planes.
        .target(name: "ARDetect", dependencies: ["CZBar", "ARCore"]),
        // Image motion between decodes (pyramids, optical flow, robust fits) on luma planes.
        .target(name: "ARVision", dependencies: ["ARCore"]),
        // Overlay style files, rules and placement (anchors, offsets, sizes).
        .target(name: "ARStyle", dependencies: ["ARCore"]),
        // JSON Lines destinations (files, standard output, UDP, TCP) delivering whole lines only.
        .target(name: "ARLines"),
        // MQTT publishing (libmosquitto) from a thread of its own, through ARLines' on-disk queue.
        .target(name: "ARMQTT", dependencies: ["CMosquitto", "ARLines"]),
        // cairo/pango drawing of overlays.
        .target(name: "ARRender", dependencies: ["CPangoCairo", "CRsvg", "ARStyle", "ARCore"]),
        // The elements and the plugin's registration list.
        .target(name: "ARElements",
                dependencies: ["ARGst", "ARDetect", "ARVision", "ARStyle", "ARRender", "ARCodeGen", "ARCore", "CCairoGObject",
                               "ARLines", "COSShim", "ARMQTT", "CGstApp"]),
        // Synthetic code images (QR, EAN-13, Code 128) with exact ground truth.
        .target(name: "ARCodeGen", dependencies: ["CQREncode", "ARCore"]),
        .executableTarget(name: "arclip", dependencies: ["ARCodeGen", "ARCore"]),

        // Pipeline files (pipelines/*.pipeline): comments, variables, what they output.
        .target(name: "ARPipelines"),
        // RTSP serving of pipeline files with gst-rtsp-server: one camera each, restarted when it fails;
        // its frames for browsers (JPEG, or WebRTC through webrtcbin).
        .target(name: "ARServe", dependencies: ["ARPipelines", "ARWeb", "ARCore", "ARElements", "ARGst", "ARBridge", "CGstRtspServer", "CGstApp", "CGStreamer",
                                                 "CGstWebRTC", "CGstSdp"]),
        // What arserve's browser page needs that is not GStreamer: the page, its frame messages,
        // click mapping, basic authentication.
        .target(name: "ARWeb", dependencies: ["ARCore"]),
        // arserve --http: the page, /status and each camera's WebSocket, served with FlyingFox.
        .target(name: "ARServeWeb", dependencies: ["ARServe", "ARWeb", .product(name: "FlyingFox", package: "FlyingFox")]),
        .executableTarget(name: "arserve", dependencies: ["ARServe", "ARServeWeb", "ARPipelines"]),
        // Benchmarks and accuracy measurements (release builds), stock GStreamer elements side by side.
        .executableTarget(name: "arbench",
                          dependencies: ["ARElements", "ARGst", "ARDetect", "ARCodeGen", "ARCore", "CGStreamer", "ARBridge",
                                         "ARServe", "CGstApp"]),

        .testTarget(name: "ARCoreTests", dependencies: ["ARCore"]),
        .testTarget(name: "ARDetectTests", dependencies: ["ARDetect", "ARCodeGen", "ARCore", "CQREncode"]),
        .testTarget(name: "ARVisionTests", dependencies: ["ARVision", "ARCodeGen", "ARCore"]),
        .testTarget(name: "ARStyleTests", dependencies: ["ARStyle", "ARCore"]),
        .testTarget(name: "ARPipelinesTests", dependencies: ["ARPipelines"]),
        .testTarget(name: "ARServeTests",
                    dependencies: ["ARServe", "ARServeWeb", "ARWeb", "arserve", "ARPipelines", "ARElements", "ARBridge", "ARGst",
                                   "CGStreamer", "ARCore"]),
        .testTarget(name: "ARWebTests", dependencies: ["ARWeb", "ARCore"]),
        .testTarget(name: "ARRenderTests", dependencies: ["ARRender", "ARStyle", "ARCore"]),
        .testTarget(name: "ARLinesTests", dependencies: ["ARLines", "ARCore"]),
        .testTarget(name: "ARCodeGenTests", dependencies: ["ARCodeGen", "ARCore"]),
        .testTarget(name: "ARElementsTests",
                    dependencies: ["ARElements", "ARGst", "ARCore", "ARCodeGen", "ARRender", "ARVision", "CGstCheck", "CGStreamer",
                                   "ARBridge"]),
    ]
)
