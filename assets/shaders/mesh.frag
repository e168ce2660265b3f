#version 330 core
in vec3 world_position;
in vec3 world_normal;
in vec4 color;

uniform vec3 eye;
uniform vec3 light_direction; // towards the light

out vec4 frag_color;

void main()
{
    vec3 n = normalize(world_normal);
    vec3 view = normalize(eye - world_position);
    if (dot(n, view) < 0.0)
        n = -n; // two-sided (open cone tips)
    vec3 l = normalize(light_direction);
    vec3 h = normalize(l + view);
    float diffuse = max(dot(n, l), 0.0);
    float fill = max(dot(n, view), 0.0);
    float specular = pow(max(dot(n, h), 0.0), 48.0);
    vec3 rgb = color.rgb * (0.28 + 0.55 * diffuse + 0.22 * fill) + vec3(0.25 * specular);
    frag_color = vec4(rgb, color.a);
}
