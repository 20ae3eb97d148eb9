#!/usr/bin/env bash
# mq-render takes what mq-pick takes: --camera/--up/--fov, several meshes with --place,
# saved hierarchies; it refuses an --out that is not a PNG name. Where mq-pick says a
# pixel hits, mq-render's pixel is not background, and the other way round.
# Usage: test_mq_render_scene.sh PATH/TO/mq-render PATH/TO/mq-pick MESH.obj
set -u
render=$1
pick=$2
mesh=$3
. "$(dirname "$0")/check.sh"

# --out must name a PNG (or be '-'): exit 2, nothing written.
for bad in x.jpg x.png.txt x; do
    "$render" "$mesh" --size 8x8 --out "$tmp/$bad" 2> "$tmp/err.txt"; rc=$?
    check "--out $bad exits 2" test "$rc" -eq 2
    check "--out $bad is named" grep -q -- "$bad" "$tmp/err.txt"
    check "--out $bad: nothing written" test ! -e "$tmp/$bad"
done
check "--out X.PNG is a PNG name" "$render" "$mesh" --size 8x8 --out "$tmp/upper.PNG"
check "--out - writes to stdout" sh -c "'$render' '$mesh' --size 8x8 --out - | head -c 8 | od -An -t x1 | tr -d ' \n' | grep -qx 89504e470d0a1a0a"

# Bad camera and placement arguments: exit 2.
for args in "--camera 1,2,3" "--up 0,1" "--fov 0" "--fov 180" "--camera 0,0,0,0,0,0" "--place 1,2"; do
    # shellcheck disable=SC2086
    "$render" "$mesh" $args --size 8x8 --out "$tmp/bad.png" 2> /dev/null; rc=$?
    check "$args exits 2 (got $rc)" test "$rc" -eq 2
done
"$render" --place 1,2,3 "$mesh" --size 8x8 --out "$tmp/bad.png" 2> /dev/null; rc=$?
check "--place before any mesh exits 2" test "$rc" -eq 2

# The camera options change the image; a saved hierarchy renders as its OBJ.
check "default camera" "$render" "$mesh" --size 48x32 --out "$tmp/default.png"
check "--camera --up --fov" "$render" "$mesh" --size 48x32 --camera 0,0.5,3,0,0.2,0 --up 0,1,0 --fov 30 --out "$tmp/cam.png"
check "--camera changes the image" sh -c "! cmp -s '$tmp/default.png' '$tmp/cam.png'"
check "--fov changes the image" sh -c "'$render' '$mesh' --size 48x32 --fov 60 --out '$tmp/fov.png' && ! cmp -s '$tmp/default.png' '$tmp/fov.png'"
check "save a hierarchy" "$pick" "$mesh" --save "$tmp/mesh.mqh"
check "a saved hierarchy renders" "$render" "$tmp/mesh.mqh" --size 48x32 --out "$tmp/saved.png"
check "the saved hierarchy renders as its OBJ" cmp -s "$tmp/default.png" "$tmp/saved.png"
check "identity --place renders as no --place" sh -c "'$render' '$mesh' --place 0,0,0 --size 48x32 --out '$tmp/id.png' && cmp -s '$tmp/default.png' '$tmp/id.png'"

# Pixels: hit or background, as mq-pick says, for one mesh with a camera and for two placed meshes.
if command -v python3 > /dev/null; then
    cat > "$tmp/png.py" <<'PY'
import sys, struct, zlib
# prints one line per pixel x,y given: 1 when it is not the background colour, else 0
data = open(sys.argv[1], "rb").read()
pos, idat, w, h = 8, b"", 0, 0
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
        w, h = struct.unpack(">II", body[:8])
    elif kind == b"IDAT":
        idat += body
    pos += 12 + n
raw, stride, rows, prev = zlib.decompress(idat), 3 * w, [], bytearray(3 * w)
for y in range(h):
    f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - 3] if i >= 3 else 0
        b = prev[i]
        c = prev[i - 3] if i >= 3 else 0
        if f == 1: line[i] = (line[i] + a) & 255
        elif f == 2: line[i] = (line[i] + b) & 255
        elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    rows.append(line)
    prev = line
for xy in sys.argv[2:]:
    x, y = map(int, xy.split(","))
    print(0 if tuple(rows[y][3 * x:3 * x + 3]) == (24, 26, 38) else 1)
PY
    pixels=""
    for y in 2 9 16 23 30; do for x in 3 10 17 24 31 38 45; do pixels="$pixels $x,$y"; done; done
    compare() { # compare NAME RENDER-ARGS... -- PICK-ARGS...
        local name=$1 r=() p=()
        shift
        while [ "$1" != "--" ]; do r+=("$1"); shift; done
        shift
        p=("$@")
        "$render" "${r[@]}" --size 48x32 --out "$tmp/cmp.png" || return 1
        local px=()
        for xy in $pixels; do px+=(--pixel "$xy"); done
        "$pick" "${p[@]}" --size 48x32 "${px[@]}" --json | awk '{print ($0 ~ /"hit":false/) ? 0 : 1}' > "$tmp/pick.txt"
        # shellcheck disable=SC2086
        python3 "$tmp/png.py" "$tmp/cmp.png" $pixels > "$tmp/render.txt"
        test "$(grep -c 1 "$tmp/pick.txt")" -gt 0 && test "$(grep -c 0 "$tmp/pick.txt")" -gt 0 &&
            cmp -s "$tmp/pick.txt" "$tmp/render.txt"
    }
    cam=(--camera 0.4,0.8,2.5,0,0.2,0 --up 0.1,1,0 --fov 40)
    check "camera: hits where mq-pick hits" compare cam "$mesh" "${cam[@]}" -- "$mesh" "${cam[@]}"
    two=("$mesh" "$mesh" --place 0.9,0.1,-0.5,0.7071068,0,0.7071068,0,0.8)
    check "two placed meshes: hits where mq-pick hits" compare two "${two[@]}" -- "${two[@]}"
    check "two placed meshes with a camera" compare twocam "${two[@]}" "${cam[@]}" -- "${two[@]}" "${cam[@]}"
fi

finish
