#version 330 core
// Instanced primitives: mode 0 draws a frustum from a to b with radii (ra, rb) using a unit
// cylinder mesh (x, y on the unit circle, z in [0, 1]); mode 1 draws a sphere of radius ra at a;
// mode 2 a box from a to b, half-width ra along side, half-height rb (unit box: x, y in [-1, 1],
// z in [0, 1], vertex_normal the face's normal).
layout(location = 0) in vec3 vertex;
layout(location = 1) in vec3 vertex_normal; // cylinder: (radial x, radial y, cap sign)
layout(location = 2) in vec3 inst_a;
layout(location = 3) in vec3 inst_b;
layout(location = 4) in vec2 inst_radii;
layout(location = 5) in vec4 inst_color;
layout(location = 6) in vec3 inst_side;

uniform mat4 view_projection;
uniform int mode;

out vec3 world_position;
out vec3 world_normal;
out vec4 color;

void main()
{
    vec3 p;
    vec3 n;
    if (mode == 1) {
        p = inst_a + inst_radii.x * vertex;
        n = vertex;
    } else if (mode == 2) {
        vec3 axis = inst_b - inst_a;
        vec3 w = normalize(axis);
        vec3 u = normalize(inst_side - dot(inst_side, w) * w);
        vec3 v = cross(w, u);
        p = inst_a + vertex.z * axis + vertex.x * inst_radii.x * u + vertex.y * inst_radii.y * v;
        n = vertex_normal.x * u + vertex_normal.y * v + vertex_normal.z * w;
    } else {
        vec3 axis = inst_b - inst_a;
        float len = length(axis);
        vec3 w = len > 0.0 ? axis / len : vec3(0.0, 0.0, 1.0);
        vec3 helper = abs(w.z) < 0.9 ? vec3(0.0, 0.0, 1.0) : vec3(1.0, 0.0, 0.0);
        vec3 u = normalize(cross(helper, w));
        vec3 v = cross(w, u);
        float r = mix(inst_radii.x, inst_radii.y, vertex.z);
        vec3 radial = vertex.x * u + vertex.y * v;
        p = inst_a + vertex.z * axis + r * radial;
        if (vertex_normal.z != 0.0)
            n = vertex_normal.z * w; // cap
        else
            n = normalize(radial * len + w * (inst_radii.x - inst_radii.y));
    }
    world_position = p;
    world_normal = n;
    color = inst_color;
    gl_Position = view_projection * vec4(p, 1.0);
}
