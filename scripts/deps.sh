#!/usr/bin/env bash
# Installs the Debian 12 packages arbarcode needs, only those missing (idempotent), and says which.
# Usage: scripts/deps.sh build|demo|bench
#   build: compile the plugin and arserve, and run the tests (RTSP tests encode and decode H.264;
#          the Python examples run with PyGObject and pycairo)
#   demo:  the same set (H.264 encoding and MP4 muxing for the demo video)
#   bench: the same plus python3 (the stock zbar element and webpdec are in plugins-bad), and from
#          PyPI with pip: zxing-cpp (compared side by side) and Pillow (reads images for it)
set -euo pipefail

build=(pkg-config make libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev libgstrtspserver-1.0-dev
       patchelf libzbar-dev libcairo2-dev libpango1.0-dev libqrencode-dev gstreamer1.0-tools gstreamer1.0-plugins-base
       gstreamer1.0-plugins-good gstreamer1.0-plugins-bad gstreamer1.0-plugins-ugly gstreamer1.0-libav
       gstreamer1.0-plugins-base-apps fonts-dejavu-core fonts-ipafont-gothic
       # the Python examples in docs/examples (GStreamer through PyGObject, drawing with pycairo)
       python3-gi gir1.2-gstreamer-1.0 python3-gi-cairo
       # an RTSP client that is not GStreamer, for the RTSP tests (ffmpeg), and viewers arserve suggests
       ffmpeg
       # systemd-analyze, which checks the arserve service's unit (deploy/arserve.service) in the tests
       systemd
       # arexport's MQTT target (libmosquitto), and a broker, clients and openssl (TLS certificates) for its tests
       libmosquitto-dev mosquitto mosquitto-clients openssl
       # SVG icons in aroverlay's styles
       librsvg2-dev
       # headless Chromium and Firefox, which load arserve's browser page in the tests (arserve --http)
       chromium firefox-esr
       # arserve's WebRTC video: webrtcbin's and SDP's headers (module maps), ICE for webrtcbin
       # (webrtcbin itself is in plugins-bad, its H.264 from x264enc in plugins-ugly, VP8 for Firefox from
       # vp8enc in plugins-good, all above)
       libgstreamer-plugins-bad1.0-dev gstreamer1.0-nice
       # what the Swift toolchain itself needs to compile and link on Debian 12
       binutils libc6-dev libgcc-12-dev libstdc++-12-dev libcurl4 libxml2 libedit2 libsqlite3-0 libncurses6
       zlib1g-dev tzdata)
demo=("${build[@]}")
bench=("${demo[@]}" python3)

case "${1:-build}" in
  build) wanted=("${build[@]}") ;;
  demo) wanted=("${demo[@]}") ;;
  bench) wanted=("${bench[@]}") ;;
  *) echo "usage: $0 build|demo|bench" >&2; exit 2 ;;
esac

SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
missing=()
for p in "${wanted[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "deps: installing ${missing[*]}"
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
else
  echo "deps: all ${#wanted[@]} Debian packages for '${1:-build}' already installed"
fi

if [ "${1:-build}" = bench ]; then
  # PyPI packages for scripts/zxing_read.py, only those the python3 on PATH cannot import.
  pypi=()
  python3 -c 'import zxingcpp' 2>/dev/null || pypi+=(zxing-cpp)
  python3 -c 'import PIL' 2>/dev/null || pypi+=(Pillow)
  if [ ${#pypi[@]} -gt 0 ]; then
    if ! python3 -m pip --version >/dev/null 2>&1; then
      echo "deps: installing python3-pip (Debian)"
      $SUDO apt-get update -q
      DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends python3-pip
    fi
    # Debian's own python3 refuses pip installs outside a virtual environment unless told.
    managed=$(python3 -c 'import os, sysconfig; print(os.path.exists(os.path.join(sysconfig.get_paths()["stdlib"], "EXTERNALLY-MANAGED")))')
    flags=(--quiet --disable-pip-version-check)
    [ "$managed" = True ] && flags+=(--break-system-packages)
    echo "deps: installing ${pypi[*]} (PyPI, pip)"
    $SUDO python3 -m pip install "${flags[@]}" "${pypi[@]}"
  else
    echo "deps: PyPI packages zxing-cpp and Pillow already installed"
  fi
fi

if ! command -v swift >/dev/null 2>&1 && [ ! -x /opt/swift/usr/bin/swift ]; then
  echo "deps: no Swift toolchain found (looked in PATH and /opt/swift/usr/bin): install Swift 5.9 or newer" >&2
  exit 1
fi
