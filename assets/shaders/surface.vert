#version 330 core
// Triangles given in world coordinates (the road), lit like the meshes (mesh.frag).
layout(location = 0) in vec3 position;
layout(location = 1) in vec3 vertex_normal;
layout(location = 2) in vec4 vertex_color;
uniform mat4 view_projection;
out vec3 world_position;
out vec3 world_normal;
out vec4 color;
void main()
{
    world_position = position;
    world_normal = vertex_normal;
    color = vertex_color;
    gl_Position = view_projection * vec4(position, 1.0);
}
