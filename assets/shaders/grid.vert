#version 330 core
layout(location = 0) in vec3 position;
layout(location = 1) in vec4 line_color;
uniform mat4 view_projection;
out vec4 color;
void main()
{
    color = line_color;
    gl_Position = view_projection * vec4(position, 1.0);
}
