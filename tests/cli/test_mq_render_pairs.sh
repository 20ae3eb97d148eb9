#!/usr/bin/env bash
# mq-render --segments / --closest (docs/formats.md): the intersection segments of
# two meshes are drawn in magenta (255,0,255) where the segment projects, thick where
# it is in view and thin where a surface hides it, nowhere once the meshes are moved
# apart; the closest pair is a cyan (0,255,255) dot on each point mq-pick --distance
# reports, joined by a white line, and nothing when the meshes intersect. The
# projection is computed here from the camera as docs/formats.md defines it.
# Usage: test_mq_render_pairs.sh PATH/TO/mq-render PATH/TO/mq-pick MESH.obj
set -u
render=$1
pick=$2
mesh=$3
. "$(dirname "$0")/check.sh"

# Either option needs two meshes or more; neither changes anything without a pair.
for opt in --segments --closest; do
    "$render" "$mesh" $opt --size 16x16 --out "$tmp/one.png" 2> "$tmp/err.txt"; rc=$?
    check "$opt with one mesh exits 2 (got $rc)" test "$rc" -eq 2
    check "$opt with one mesh is named" grep -q -- "$opt" "$tmp/err.txt"
    check "$opt with one mesh: nothing written" test ! -e "$tmp/one.png"
done
check "--help names --segments and --closest" sh -c "'$render' --help | grep -q -- --segments && '$render' --help | grep -q -- --closest"

if ! command -v python3 > /dev/null; then
    echo "python3 is needed to read the pixels"
    exit 1
fi

# Two unit squares: A flat in y = 0 (x, z in [-1, 1]), B upright in z = 0 (x, y in
# [-0.6, 0.6]); they cut along x in [-0.6, 0.6] at y = z = 0. C, in z = 0.5 with y in
# [0.05, 0.6] and x in [0, 1], meets neither and hides part of that cut from the camera.
cat > "$tmp/a.obj" << 'OBJ'
v -1 0 -1
v 1 0 -1
v 1 0 1
v -1 0 1
f 1 2 3
f 1 3 4
OBJ
cat > "$tmp/b.obj" << 'OBJ'
v -0.6 -0.6 0
v 0.6 -0.6 0
v 0.6 0.6 0
v -0.6 0.6 0
f 1 2 3
f 1 3 4
OBJ
cat > "$tmp/c.obj" << 'OBJ'
v 0 0.05 0.5
v 1 0.05 0.5
v 1 0.6 0.5
v 0 0.6 0.5
f 1 2 3
f 1 3 4
OBJ

# pixels.py IMAGE.png EYE TARGET FOV COMMAND ARGS: decodes the PNG (8-bit RGB, as mq-render
# writes it), projects world points with the camera of docs/formats.md (up 0,1,0) and answers:
#   count R,G,B                        pixels of that colour
#   near R,G,B X,Y,Z RADIUS            how many pixels of that colour lie within RADIUS
#                                      pixels of the point's projection
#   far R,G,B X0,Y0,Z0 X1,Y1,Z1 RADIUS pixels of that colour farther than RADIUS from the
#                                      projection of the segment
cat > "$tmp/pixels.py" << 'PY'
import math, struct, sys, zlib
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
vec = lambda s: [float(v) for v in s.split(",")]
eye, target, fov = vec(sys.argv[2]), vec(sys.argv[3]), float(sys.argv[4])
sub = lambda p, q: [p[k] - q[k] for k in range(3)]
dot = lambda p, q: sum(p[k] * q[k] for k in range(3))
cross = lambda p, q: [p[1] * q[2] - p[2] * q[1], p[2] * q[0] - p[0] * q[2], p[0] * q[1] - p[1] * q[0]]
unit = lambda p: [v / math.sqrt(dot(p, p)) for v in p]
fwd = unit(sub(target, eye))
right = unit(cross(fwd, [0.0, 1.0, 0.0]))
up = cross(right, fwd)
th = math.tan(math.radians(fov) / 2)
def project(p):  # the pixel (centres at whole numbers) whose ray goes through p
    d = sub(p, eye)
    z = dot(d, fwd)
    sx, sy = dot(d, right) / z / (th * w / h), dot(d, up) / z / th
    return (sx + 1) * w / 2 - 0.5, (1 - sy) * h / 2 - 0.5
def pixels(colour):
    c = tuple(colour)
    return [(x, y) for y in range(h) for x in range(w) if tuple(rows[y][3 * x:3 * x + 3]) == c]
cmd, colour = sys.argv[5], [int(v) for v in sys.argv[6].split(",")]
if cmd == "count":
    print(len(pixels(colour)))
elif cmd == "near":
    px, py = project(vec(sys.argv[7]))
    r = float(sys.argv[8])
    print(sum(1 for x, y in pixels(colour) if math.hypot(x - px, y - py) <= r))
elif cmd == "far":
    (x0, y0), (x1, y1) = project(vec(sys.argv[7])), project(vec(sys.argv[8]))
    r = float(sys.argv[9])
    def gap(x, y):
        dx, dy = x1 - x0, y1 - y0
        u = max(0.0, min(1.0, ((x - x0) * dx + (y - y0) * dy) / (dx * dx + dy * dy)))
        return math.hypot(x - x0 - u * dx, y - y0 - u * dy)
    print(sum(1 for x, y in pixels(colour) if gap(x, y) > r))
PY
eye=0.3,2,3
target=0,0,0
cam=(--camera "$eye,$target" --size 256x192)
px() { python3 "$tmp/pixels.py" "$1" "$eye" "$target" 45 "${@:2}"; }
magenta=255,0,255
cyan=0,255,255
white=255,255,255

# Intersecting: magenta all along the cut, and nowhere else.
check "segments render" "$render" "$tmp/a.obj" "$tmp/b.obj" "${cam[@]}" --segments --timing --out "$tmp/cut.png" 2> "$tmp/cut.err"
check "--timing counts the intersecting pair" grep -q "1 of 1 mesh pairs intersect" "$tmp/cut.err"
for x in -0.55 -0.3 0 0.3 0.55; do
    # a visible line is 3 pixels wide at this size: its 2-pixel disc holds 9 or more
    check "a thick magenta line over the cut at x = $x" test "$(px "$tmp/cut.png" near $magenta "$x,0,0" 2)" -ge 9
done
check "no magenta away from the cut" test "$(px "$tmp/cut.png" far $magenta -0.6,0,0 0.6,0,0 3)" -eq 0
check "no cyan without --closest" test "$(px "$tmp/cut.png" count $cyan)" -eq 0

# Without --segments the same scene has no magenta (the one-mesh contract is untouched).
check "plain render" "$render" "$tmp/a.obj" "$tmp/b.obj" "${cam[@]}" --out "$tmp/plain.png"
check "no magenta without --segments" test "$(px "$tmp/plain.png" count $magenta)" -eq 0

# Moved apart: B lifted by 1 no longer meets A.
check "apart renders" "$render" "$tmp/a.obj" "$tmp/b.obj" --place 0,1,0 "${cam[@]}" --segments --out "$tmp/apart.png"
check "no magenta when apart" test "$(px "$tmp/apart.png" count $magenta)" -eq 0

# A scaled placement: B at half size cuts A along x in [-0.3, 0.3] only.
check "scaled renders" "$render" "$tmp/a.obj" "$tmp/b.obj" --place 0,0,0,1,0,0,0,0.5 "${cam[@]}" --segments --out "$tmp/half.png"
check "magenta over the shorter cut" test "$(px "$tmp/half.png" near $magenta 0.2,0,0 2)" -ge 9
check "no magenta past the shorter cut" test "$(px "$tmp/half.png" far $magenta -0.3,0,0 0.3,0,0 3)" -eq 0

# Depth-tested: C hides the cut for x > 0 (about 0.05 to 0.6 from this eye), where the
# line is thin and dashed; in view (x < 0) it stays thick. Three meshes: 3 pairs, 1 cuts.
check "occluded renders" "$render" "$tmp/a.obj" "$tmp/b.obj" "$tmp/c.obj" "${cam[@]}" --segments --timing --out "$tmp/hidden.png" 2> "$tmp/hidden.err"
check "--timing: 1 of 3 pairs intersect" grep -q "1 of 3 mesh pairs intersect" "$tmp/hidden.err"
check "thick in view" test "$(px "$tmp/hidden.png" near $magenta -0.3,0,0 2)" -ge 9
for x in 0.2 0.35 0.5; do
    n=$(px "$tmp/hidden.png" near $magenta "$x,0,0" 2)
    check "thin where hidden at x = $x (got $n)" test "$n" -le 4
done
check "hidden part still drawn" test "$(px "$tmp/hidden.png" far $magenta -0.6,0,0 0,0,0 3)" -gt 0

# Closest pair: spot and a turned copy 1.5 to the side, as mq-pick --distance finds them.
# shellcheck disable=SC2054
two=("$mesh" "$mesh" --place 1.5,0,0,0.7071068,0,0.7071068,0)
seye=0.75,1.2,3.2
starget=0.75,0.3,0
"$pick" "${two[@]}" --distance --json > "$tmp/d.json"
check "mq-pick --distance answers" grep -q '"point_b"' "$tmp/d.json"
pa=$(python3 -c "import json; print(','.join(map(str, json.load(open('$tmp/d.json'))['point_a'])))")
pb=$(python3 -c "import json; print(','.join(map(str, json.load(open('$tmp/d.json'))['point_b'])))")
spx() { python3 "$tmp/pixels.py" "$1" "$seye" "$starget" 45 "${@:2}"; }
check "closest renders" "$render" "${two[@]}" --camera "$seye,$starget" --size 320x240 --closest --out "$tmp/gap.png"
check "a cyan dot on point a" test "$(spx "$tmp/gap.png" near $cyan "$pa" 2)" -ge 9
check "a cyan dot on point b" test "$(spx "$tmp/gap.png" near $cyan "$pb" 2)" -ge 9
check "no cyan away from the points" test "$(( $(spx "$tmp/gap.png" count $cyan) - $(spx "$tmp/gap.png" near $cyan "$pa" 6) - $(spx "$tmp/gap.png" near $cyan "$pb" 6) ))" -le 0
check "a white line between them" test "$(spx "$tmp/gap.png" far $white "$pa" "$pb" 3)" -eq 0 -a "$(spx "$tmp/gap.png" count $white)" -gt 0
check "--closest draws no magenta" test "$(spx "$tmp/gap.png" count $magenta)" -eq 0

# Intersecting meshes have no closest pair to draw.
check "closest when intersecting" "$render" "$mesh" "$mesh" --place 0.3,0.1,0 --size 64x64 --closest --out "$tmp/meet.png"
check "no cyan when they intersect" test "$(px "$tmp/meet.png" count $cyan)" -eq 0

finish
