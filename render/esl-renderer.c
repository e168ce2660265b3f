/* OpenGL 3.3 core renderer for EslScene. See esl-renderer.h. */
#include "esl-renderer.h"

#include <cglm/cglm.h>
#include <epoxy/egl.h>
#include <epoxy/gl.h>
#include <math.h>
#include <string.h>

#include "esl-shader-resources.h"

G_DEFINE_QUARK(esl-renderer-error-quark, esl_renderer_error)

/* Levels of detail of the unit meshes, finest first: a primitive is drawn with the coarsest level
 * whose faceting stays under half a pixel at its on-screen size. Lattices of hundreds of bodies
 * seen whole are mostly small on screen; with software OpenGL the vertex work is the cost. */
#define LOD_LEVELS 3 /* as many as EslRenderStats.instances */
static const int lod_segments[LOD_LEVELS] = {28, 14, 8}; /* around a circle or a sphere */
G_STATIC_ASSERT(LOD_LEVELS == G_N_ELEMENTS(((EslRenderStats *)NULL)->instances));
#define HELIX_SEGMENTS_PER_TURN 14
#define OFFSCREEN_SAMPLES 4

/* One instance: a, b, radii, colour, and a box's side direction. */
typedef struct {
    float a[3], b[3];
    float radii[2];
    float color[4];
    float side[3];
} Instance;

typedef struct {
    GLuint vao, vertex_buffer, index_buffer, instance_buffer;
    GLsizei index_count;
    GArray *instances; /* of Instance, reused every frame */
} Mesh;

struct EslRenderer {
    GLuint mesh_program, grid_program;
    GLuint surface_program;
    GLint mesh_vp, mesh_mode, mesh_eye, mesh_light, grid_vp;
    GLint surface_vp, surface_eye, surface_light;
    Mesh frustum[LOD_LEVELS], sphere[LOD_LEVELS], box;
    GLuint surface_vao, surface_buffer; /* the scene's triangles (the road), refilled per frame */
    float lod_max_radius_px[LOD_LEVELS]; /* largest on-screen radius each level draws well */
    /* of the frame being collected: camera eye and pixels per unit length at unit distance */
    float eye[3], pixels_per_unit;
    EslRenderStats stats;
    GLuint grid_vao, grid_buffer;
    GLsizei grid_vertex_count;
    float grid_key[8]; /* scene geometry the grid was built for */
    gboolean show_grid;
    GArray *grid_vertices;
    /* offscreen */
    int off_width, off_height;
    GLuint off_msaa_fbo, off_msaa_color, off_msaa_depth, off_resolve_fbo, off_resolve_color;
};

/* ---- camera --------------------------------------------------------------------------- */

/* Orthonormal basis (e1, e2, up) with up the camera's up vector. */
static void up_basis(const float up[3], vec3 e1, vec3 e2, vec3 u)
{
    glm_vec3_copy((float *)up, u);
    if (glm_vec3_norm(u) < 1e-6f)
        glm_vec3_copy((vec3){0, 0, 1}, u);
    glm_vec3_normalize(u);
    vec3 helper = {1, 0, 0};
    if (fabsf(u[0]) > 0.9f)
        glm_vec3_copy((vec3){0, 1, 0}, helper);
    glm_vec3_cross(u, helper, e2);
    glm_vec3_normalize(e2);
    glm_vec3_cross(e2, u, e1);
    glm_vec3_normalize(e1);
}

/* Unit vector from the target towards the eye. */
static void view_direction(const EslCamera *c, vec3 dir)
{
    vec3 e1, e2, u;
    up_basis(c->up, e1, e2, u);
    float cp = cosf(c->pitch), sp = sinf(c->pitch);
    for (int k = 0; k < 3; k++)
        dir[k] = cp * (cosf(c->yaw) * e1[k] + sinf(c->yaw) * e2[k]) + sp * u[k];
}

void esl_camera_eye(const EslCamera *c, float eye[3])
{
    vec3 dir;
    view_direction(c, dir);
    for (int k = 0; k < 3; k++)
        eye[k] = c->target[k] + c->distance * dir[k];
}

void esl_camera_fit(EslCamera *c, const EslScene *scene)
{
    if (c->fov <= 0)
        c->fov = glm_rad(35.0f);
    glm_vec3_copy((float *)scene->center, c->target);
    glm_vec3_copy((float *)scene->up, c->up);
    float radius = scene->radius > 0 ? scene->radius : 1.0f;
    c->distance = 1.15f * radius / sinf(0.5f * c->fov);
}

void esl_camera_set_view(EslCamera *c, EslStandardView view, const EslScene *scene)
{
    switch (view) {
    case ESL_VIEW_FRONT: c->yaw = -GLM_PI_2f; c->pitch = 0.0f; break;
    case ESL_VIEW_SIDE: c->yaw = 0.0f; c->pitch = 0.0f; break;
    case ESL_VIEW_TOP: c->yaw = -GLM_PI_2f; c->pitch = GLM_PI_2f - 1e-3f; break;
    case ESL_VIEW_ISOMETRIC:
    default: c->yaw = -GLM_PI_4f - 0.35f; c->pitch = 0.45f; break;
    }
    esl_camera_fit(c, scene);
}

void esl_camera_follow(EslCamera *c, const float p[3])
{
    glm_vec3_copy((float *)p, c->target);
}

void esl_camera_orbit(EslCamera *c, float dyaw, float dpitch)
{
    c->yaw += dyaw;
    c->pitch = glm_clamp(c->pitch + dpitch, -GLM_PI_2f + 1e-3f, GLM_PI_2f - 1e-3f);
}

void esl_camera_pan(EslCamera *c, float dx, float dy)
{
    vec3 dir, right, cam_up, u, e1, e2;
    view_direction(c, dir);
    up_basis(c->up, e1, e2, u);
    glm_vec3_cross(u, dir, right);
    glm_vec3_normalize(right);
    glm_vec3_cross(dir, right, cam_up);
    float scale = 2.0f * c->distance * tanf(0.5f * c->fov);
    for (int k = 0; k < 3; k++)
        c->target[k] += scale * (-dx * right[k] + dy * cam_up[k]);
}

void esl_camera_zoom(EslCamera *c, float factor)
{
    if (factor > 0)
        c->distance = glm_clamp(c->distance * factor, 1e-4f, 1e6f);
}

static void camera_matrices(const EslCamera *c, float aspect, const EslScene *scene, mat4 vp)
{
    vec3 eye;
    esl_camera_eye(c, eye);
    float radius = scene && scene->radius > 0 ? scene->radius : 1.0f;
    float near_plane = fmaxf(c->distance - 6.0f * radius, c->distance * 0.01f);
    float far_plane = c->distance + 6.0f * radius;
    mat4 proj, view;
    glm_perspective(c->fov, aspect, near_plane, far_plane, proj);
    glm_lookat(eye, (float *)c->target, (float *)c->up, view);
    glm_mat4_mul(proj, view, vp);
}

void esl_camera_fit_box(EslCamera *c, const float lo[3], const float hi[3], float aspect)
{
    if (c->fov <= 0)
        c->fov = glm_rad(35.0f);
    if (!(aspect > 0) || !isfinite(aspect))
        aspect = 1.0f;
    vec3 dir, right, cam_up, e1, e2, u;
    view_direction(c, dir);
    up_basis(c->up, e1, e2, u);
    glm_vec3_cross(u, dir, right); /* as glm_lookat builds the view */
    glm_vec3_normalize(right);
    glm_vec3_cross(dir, right, cam_up);
    for (int k = 0; k < 3; k++)
        c->target[k] = 0.5f * (lo[k] + hi[k]);
    /* A corner at offsets (x, y) across and z towards the eye is seen at depth D - z, at
     * x / ((D - z) tan(fov_h / 2)) of the half-width (y likewise with fov): in view when both
     * are within [-1, 1]. Perspective shifts the picture of the box off-centre, so the target is
     * moved across the view until the picture is centred, then D is the smallest that fits. */
    float tan_v = tanf(0.5f * c->fov), tan_h = aspect * tan_v;
    for (int pass = 0;; pass++) {
        float need = 0.0f, nearest = 0.0f;
        vec3 d[8];
        for (int corner = 0; corner < 8; corner++) {
            for (int k = 0; k < 3; k++)
                d[corner][k] = ((corner >> k) & 1 ? hi[k] : lo[k]) - c->target[k];
            float x = glm_vec3_dot(d[corner], right), y = glm_vec3_dot(d[corner], cam_up);
            float z = glm_vec3_dot(d[corner], dir);
            need = fmaxf(need, fmaxf(fabsf(x) / tan_h, fabsf(y) / tan_v) + z);
            nearest = fmaxf(nearest, z);
        }
        /* a little margin; never inside the box; a point still gets a distance */
        c->distance = fmaxf(fmaxf(1.08f * need, 1.1f * nearest), 1e-3f);
        if (pass == 6)
            return;
        float x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY;
        for (int corner = 0; corner < 8; corner++) {
            float depth = c->distance - glm_vec3_dot(d[corner], dir);
            float nx = glm_vec3_dot(d[corner], right) / (depth * tan_h);
            float ny = glm_vec3_dot(d[corner], cam_up) / (depth * tan_v);
            x0 = fminf(x0, nx);
            x1 = fmaxf(x1, nx);
            y0 = fminf(y0, ny);
            y1 = fmaxf(y1, ny);
        }
        float sx = 0.5f * (x0 + x1) * c->distance * tan_h;
        float sy = 0.5f * (y0 + y1) * c->distance * tan_v;
        for (int k = 0; k < 3; k++)
            c->target[k] += sx * right[k] + sy * cam_up[k];
    }
}

gboolean esl_camera_project(const EslCamera *c, int width, int height, const float p[3],
                            float px[2])
{
    mat4 vp;
    camera_matrices(c, (float)width / (float)MAX(height, 1), NULL, vp);
    vec4 point = {p[0], p[1], p[2], 1}, clip;
    glm_mat4_mulv(vp, point, clip);
    if (!(clip[3] > 0))
        return FALSE;
    px[0] = (clip[0] / clip[3] + 1.0f) * 0.5f * (float)width;
    px[1] = (1.0f - clip[1] / clip[3]) * 0.5f * (float)height;
    return TRUE;
}

void esl_camera_ray(const EslCamera *c, int width, int height, float x, float y, float origin[3],
                    float dir[3])
{
    mat4 vp, inv;
    camera_matrices(c, (float)width / (float)MAX(height, 1), NULL, vp);
    glm_mat4_inv(vp, inv);
    float nx = 2.0f * x / (float)width - 1.0f, ny = 1.0f - 2.0f * y / (float)height;
    vec4 near_point = {nx, ny, -1, 1}, far_point = {nx, ny, 1, 1}, a, b;
    glm_mat4_mulv(inv, near_point, a);
    glm_mat4_mulv(inv, far_point, b);
    for (int k = 0; k < 3; k++) {
        origin[k] = a[k] / a[3];
        dir[k] = b[k] / b[3] - origin[k];
    }
    glm_vec3_normalize(dir);
}

/* ---- GL setup --------------------------------------------------------------------------- */

static GLuint compile_shader(GLenum type, const char *resource, GError **error)
{
    g_autofree char *path = g_strconcat("/org/eslabon/Eslabon/shaders/", resource, NULL);
    g_autoptr(GBytes) bytes =
        g_resource_lookup_data(esl_shaders_get_resource(), path, G_RESOURCE_LOOKUP_FLAGS_NONE,
                               error);
    if (!bytes)
        return 0;
    gsize len = 0;
    const char *source = g_bytes_get_data(bytes, &len);
    GLint glen = (GLint)len;
    GLuint shader = glCreateShader(type);
    glShaderSource(shader, 1, &source, &glen);
    glCompileShader(shader);
    GLint ok = 0;
    glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        char log[2048] = "";
        glGetShaderInfoLog(shader, sizeof log, NULL, log);
        g_set_error(error, ESL_RENDERER_ERROR, 0, "shader %s does not compile: %s", resource,
                    log);
        glDeleteShader(shader);
        return 0;
    }
    return shader;
}

static GLuint link_program(const char *vert, const char *frag, GError **error)
{
    GLuint vs = compile_shader(GL_VERTEX_SHADER, vert, error);
    if (!vs)
        return 0;
    GLuint fs = compile_shader(GL_FRAGMENT_SHADER, frag, error);
    if (!fs) {
        glDeleteShader(vs);
        return 0;
    }
    GLuint program = glCreateProgram();
    glAttachShader(program, vs);
    glAttachShader(program, fs);
    glLinkProgram(program);
    glDeleteShader(vs);
    glDeleteShader(fs);
    GLint ok = 0;
    glGetProgramiv(program, GL_LINK_STATUS, &ok);
    if (!ok) {
        char log[2048] = "";
        glGetProgramInfoLog(program, sizeof log, NULL, log);
        g_set_error(error, ESL_RENDERER_ERROR, 0, "shaders %s + %s do not link: %s", vert, frag,
                    log);
        glDeleteProgram(program);
        return 0;
    }
    return program;
}

/* Vertex: position (3), normal code (3). */
static void push_vertex(GArray *v, float x, float y, float z, float nx, float ny, float nz)
{
    float data[6] = {x, y, z, nx, ny, nz};
    g_array_append_vals(v, data, 6);
}

/* A float attribute of an interleaved vertex buffer. */
typedef struct {
    GLuint location;
    GLint size;
    size_t offset;
} Attribute;

/* Point the attributes at the bound buffer; divisor 1: one value per instance. */
static void set_attributes(const Attribute *attrs, size_t n, GLsizei stride, GLuint divisor)
{
    for (size_t i = 0; i < n; i++) {
        glEnableVertexAttribArray(attrs[i].location);
        glVertexAttribPointer(attrs[i].location, attrs[i].size, GL_FLOAT, GL_FALSE, stride,
                              (void *)attrs[i].offset);
        glVertexAttribDivisor(attrs[i].location, divisor);
    }
}

static void mesh_upload(Mesh *mesh, GArray *vertices, GArray *indices)
{
    glGenVertexArrays(1, &mesh->vao);
    glGenBuffers(1, &mesh->vertex_buffer);
    glGenBuffers(1, &mesh->index_buffer);
    glGenBuffers(1, &mesh->instance_buffer);
    glBindVertexArray(mesh->vao);
    glBindBuffer(GL_ARRAY_BUFFER, mesh->vertex_buffer);
    glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)(vertices->len * sizeof(float)), vertices->data,
                 GL_STATIC_DRAW);
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, 6 * sizeof(float), (void *)0);
    glEnableVertexAttribArray(1);
    glVertexAttribPointer(1, 3, GL_FLOAT, GL_FALSE, 6 * sizeof(float),
                          (void *)(3 * sizeof(float)));
    glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, mesh->index_buffer);
    glBufferData(GL_ELEMENT_ARRAY_BUFFER, (GLsizeiptr)(indices->len * sizeof(GLuint)),
                 indices->data, GL_STATIC_DRAW);
    mesh->index_count = (GLsizei)indices->len;

    glBindBuffer(GL_ARRAY_BUFFER, mesh->instance_buffer);
    glBufferData(GL_ARRAY_BUFFER, 0, NULL, GL_STREAM_DRAW);
    const Attribute attrs[] = {{2, 3, offsetof(Instance, a)},
                               {3, 3, offsetof(Instance, b)},
                               {4, 2, offsetof(Instance, radii)},
                               {5, 4, offsetof(Instance, color)},
                               {6, 3, offsetof(Instance, side)}};
    set_attributes(attrs, G_N_ELEMENTS(attrs), sizeof(Instance), 1);
    glBindVertexArray(0);
    mesh->instances = g_array_new(FALSE, FALSE, sizeof(Instance));
}

static void build_frustum_mesh(Mesh *mesh, int n)
{
    GArray *v = g_array_new(FALSE, FALSE, sizeof(float));
    GArray *idx = g_array_new(FALSE, FALSE, sizeof(GLuint));
    for (int i = 0; i <= n; i++) { /* side */
        float t = 2.0f * GLM_PIf * (float)i / (float)n, c = cosf(t), s = sinf(t);
        push_vertex(v, c, s, 0, c, s, 0);
        push_vertex(v, c, s, 1, c, s, 0);
    }
    for (int i = 0; i < n; i++) {
        GLuint a = 2 * i, b = a + 1, c = a + 2, d = a + 3;
        GLuint tri[6] = {a, c, b, b, c, d};
        g_array_append_vals(idx, tri, 6);
    }
    for (int cap = 0; cap < 2; cap++) { /* bottom (z = 0, normal -axis), top (z = 1) */
        GLuint centre = v->len / 6;
        float z = (float)cap, sign = cap ? 1.0f : -1.0f;
        push_vertex(v, 0, 0, z, 0, 0, sign);
        for (int i = 0; i <= n; i++) {
            float t = 2.0f * GLM_PIf * (float)i / (float)n;
            push_vertex(v, cosf(t), sinf(t), z, 0, 0, sign);
        }
        for (int i = 0; i < n; i++) {
            /* counter-clockwise seen from outside: the bottom cap is seen from below (with
             * back faces culled, a cap wound the other way let one see into a cylinder) */
            GLuint tri[3] = {centre, centre + (cap ? 1 : 2) + i, centre + (cap ? 2 : 1) + i};
            g_array_append_vals(idx, tri, 3);
        }
    }
    mesh_upload(mesh, v, idx);
    g_array_unref(v);
    g_array_unref(idx);
}

static void build_sphere_mesh(Mesh *mesh, int slices)
{
    GArray *v = g_array_new(FALSE, FALSE, sizeof(float));
    GArray *idx = g_array_new(FALSE, FALSE, sizeof(GLuint));
    const int stacks = slices / 2;
    for (int i = 0; i <= stacks; i++) {
        float phi = GLM_PIf * (float)i / (float)stacks;
        for (int j = 0; j <= slices; j++) {
            float theta = 2.0f * GLM_PIf * (float)j / (float)slices;
            float x = sinf(phi) * cosf(theta), y = sinf(phi) * sinf(theta), z = cosf(phi);
            push_vertex(v, x, y, z, x, y, z);
        }
    }
    for (int i = 0; i < stacks; i++)
        for (int j = 0; j < slices; j++) {
            GLuint a = i * (slices + 1) + j, b = a + slices + 1;
            GLuint tri[6] = {a, b, a + 1, a + 1, b, b + 1};
            g_array_append_vals(idx, tri, 6);
        }
    mesh_upload(mesh, v, idx);
    g_array_unref(v);
    g_array_unref(idx);
}

/* Unit box: x, y in [-1, 1] (across: side, up), z in [0, 1] (along a to b); four vertices per
 * face with the face's normal, wound counter-clockwise seen from outside. */
static void build_box_mesh(Mesh *mesh)
{
    GArray *v = g_array_new(FALSE, FALSE, sizeof(float));
    GArray *idx = g_array_new(FALSE, FALSE, sizeof(GLuint));
    for (int axis = 0; axis < 3; axis++)
        for (int sign = -1; sign <= 1; sign += 2) {
            /* face normal along axis; (s, t) span the face so that s x t = normal */
            int sa = (axis + 1) % 3, ta = (axis + 2) % 3;
            GLuint base = v->len / 6;
            for (int corner = 0; corner < 4; corner++) {
                float cs = (corner == 1 || corner == 2) ? 1.0f : -1.0f;
                float ct = (corner >= 2) ? 1.0f : -1.0f;
                if (sign < 0)
                    cs = -cs; /* keeps the winding outward on the negative face */
                float p[3] = {0, 0, 0}, n[3] = {0, 0, 0};
                p[axis] = (float)sign;
                p[sa] = cs;
                p[ta] = ct;
                n[axis] = (float)sign;
                /* z runs from 0 to 1, not -1 to 1 */
                push_vertex(v, p[0], p[1], 0.5f * (p[2] + 1.0f), n[0], n[1], n[2]);
            }
            GLuint tri[6] = {base, base + 1, base + 2, base, base + 2, base + 3};
            g_array_append_vals(idx, tri, 6);
        }
    mesh_upload(mesh, v, idx);
    g_array_unref(v);
    g_array_unref(idx);
}

EslRenderer *esl_renderer_new(GError **error)
{
    if (epoxy_gl_version() < 33) {
        g_set_error(error, ESL_RENDERER_ERROR, 0,
                    "OpenGL 3.3 is needed, the current context offers %d.%d",
                    epoxy_gl_version() / 10, epoxy_gl_version() % 10);
        return NULL;
    }
    EslRenderer *r = g_new0(EslRenderer, 1);
    r->show_grid = TRUE;
    r->mesh_program = link_program("mesh.vert", "mesh.frag", error);
    r->grid_program = r->mesh_program ? link_program("grid.vert", "grid.frag", error) : 0;
    r->surface_program = r->grid_program ? link_program("surface.vert", "mesh.frag", error) : 0;
    if (!r->mesh_program || !r->grid_program || !r->surface_program) {
        esl_renderer_free(r);
        return NULL;
    }
    r->mesh_vp = glGetUniformLocation(r->mesh_program, "view_projection");
    r->mesh_mode = glGetUniformLocation(r->mesh_program, "mode");
    r->mesh_eye = glGetUniformLocation(r->mesh_program, "eye");
    r->mesh_light = glGetUniformLocation(r->mesh_program, "light_direction");
    r->grid_vp = glGetUniformLocation(r->grid_program, "view_projection");
    r->surface_vp = glGetUniformLocation(r->surface_program, "view_projection");
    r->surface_eye = glGetUniformLocation(r->surface_program, "eye");
    r->surface_light = glGetUniformLocation(r->surface_program, "light_direction");
    build_box_mesh(&r->box);
    for (int l = 0; l < LOD_LEVELS; l++) {
        build_frustum_mesh(&r->frustum[l], lod_segments[l]);
        build_sphere_mesh(&r->sphere[l], lod_segments[l]);
        /* a polygon of n sides deviates from its circle of radius ρ by ρ (1 − cos(π/n)) */
        r->lod_max_radius_px[l] = 0.5f / (1.0f - cosf(GLM_PIf / (float)lod_segments[l]));
    }

    glGenVertexArrays(1, &r->grid_vao);
    glGenBuffers(1, &r->grid_buffer);
    glBindVertexArray(r->grid_vao);
    glBindBuffer(GL_ARRAY_BUFFER, r->grid_buffer);
    glBufferData(GL_ARRAY_BUFFER, 0, NULL, GL_DYNAMIC_DRAW);
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, 7 * sizeof(float), (void *)0);
    glEnableVertexAttribArray(1);
    glVertexAttribPointer(1, 4, GL_FLOAT, GL_FALSE, 7 * sizeof(float),
                          (void *)(3 * sizeof(float)));
    glBindVertexArray(0);
    r->grid_vertices = g_array_new(FALSE, FALSE, sizeof(float));

    glGenVertexArrays(1, &r->surface_vao);
    glGenBuffers(1, &r->surface_buffer);
    glBindVertexArray(r->surface_vao);
    glBindBuffer(GL_ARRAY_BUFFER, r->surface_buffer);
    glBufferData(GL_ARRAY_BUFFER, 0, NULL, GL_STREAM_DRAW);
    const Attribute attrs[] = {{0, 3, offsetof(EslSurfaceVertex, position)},
                               {1, 3, offsetof(EslSurfaceVertex, normal)},
                               {2, 4, offsetof(EslSurfaceVertex, color)}};
    set_attributes(attrs, G_N_ELEMENTS(attrs), sizeof(EslSurfaceVertex), 0);
    glBindVertexArray(0);
    return r;
}

static void mesh_free(Mesh *mesh)
{
    if (mesh->vao) {
        glDeleteVertexArrays(1, &mesh->vao);
        GLuint buffers[3] = {mesh->vertex_buffer, mesh->index_buffer, mesh->instance_buffer};
        glDeleteBuffers(3, buffers);
    }
    if (mesh->instances)
        g_array_unref(mesh->instances);
}

static void offscreen_free(EslRenderer *r)
{
    if (r->off_msaa_fbo) {
        GLuint fbos[2] = {r->off_msaa_fbo, r->off_resolve_fbo};
        GLuint rbs[3] = {r->off_msaa_color, r->off_msaa_depth, r->off_resolve_color};
        glDeleteFramebuffers(2, fbos);
        glDeleteRenderbuffers(3, rbs);
    }
    r->off_msaa_fbo = r->off_resolve_fbo = 0;
    r->off_width = r->off_height = 0;
}

void esl_renderer_free(EslRenderer *r)
{
    if (!r)
        return;
    offscreen_free(r);
    for (int l = 0; l < LOD_LEVELS; l++) {
        mesh_free(&r->frustum[l]);
        mesh_free(&r->sphere[l]);
    }
    mesh_free(&r->box);
    if (r->surface_vao) {
        glDeleteVertexArrays(1, &r->surface_vao);
        glDeleteBuffers(1, &r->surface_buffer);
    }
    if (r->grid_vao) {
        glDeleteVertexArrays(1, &r->grid_vao);
        glDeleteBuffers(1, &r->grid_buffer);
    }
    if (r->grid_vertices)
        g_array_unref(r->grid_vertices);
    if (r->mesh_program)
        glDeleteProgram(r->mesh_program);
    if (r->grid_program)
        glDeleteProgram(r->grid_program);
    if (r->surface_program)
        glDeleteProgram(r->surface_program);
    g_free(r);
}

void esl_renderer_set_show_grid(EslRenderer *r, gboolean show)
{
    r->show_grid = show;
}

/* ---- per-frame data -------------------------------------------------------------------- */

/* Distance from the eye to the nearest point of segment ab. */
static float eye_distance(const EslRenderer *r, const float a[3], const float b[3])
{
    vec3 ab, ae;
    glm_vec3_sub((float *)b, (float *)a, ab);
    glm_vec3_sub((float *)r->eye, (float *)a, ae);
    float len2 = glm_vec3_dot(ab, ab);
    float t = len2 > 0 ? glm_clamp(glm_vec3_dot(ae, ab) / len2, 0.0f, 1.0f) : 0.0f;
    vec3 nearest;
    glm_vec3_scale(ab, t, nearest);
    glm_vec3_add(nearest, (float *)a, nearest);
    return glm_vec3_distance(nearest, (float *)r->eye);
}

/* Queue one instance on the coarsest level of `levels` that shows it without visible facets. */
static void add_instance(EslRenderer *r, Mesh *levels, const float a[3], const float b[3],
                         float ra, float rb, const float color[4])
{
    float radius_px = fmaxf(ra, rb) * r->pixels_per_unit / fmaxf(eye_distance(r, a, b), 1e-6f);
    int level = 0;
    while (level + 1 < LOD_LEVELS && radius_px <= r->lod_max_radius_px[level + 1])
        level++;
    Instance in;
    memcpy(in.a, a, sizeof in.a);
    memcpy(in.b, b, sizeof in.b);
    in.radii[0] = ra;
    in.radii[1] = rb;
    memcpy(in.color, color, sizeof in.color);
    memset(in.side, 0, sizeof in.side);
    g_array_append_val(levels[level].instances, in);
}

static void add_helix(EslRenderer *r, const EslDrawable *d)
{
    vec3 axis, u, v, w;
    glm_vec3_sub((float *)d->b, (float *)d->a, axis);
    glm_vec3_normalize_to(axis, w);
    vec3 helper = {0, 0, 1};
    if (fabsf(w[2]) > 0.9f)
        glm_vec3_copy((vec3){1, 0, 0}, helper);
    glm_vec3_cross(helper, w, u);
    glm_vec3_normalize(u);
    glm_vec3_cross(w, u, v);
    int n = MAX(d->turns, 1) * HELIX_SEGMENTS_PER_TURN;
    float prev[3];
    for (int i = 0; i <= n; i++) {
        float t = (float)i / (float)n, theta = 2.0f * GLM_PIf * (float)d->turns * t;
        /* straight lead-in/out of 5 % at both ends, on the axis */
        float coil = (t < 0.05f || t > 0.95f) ? 0.0f : d->radius;
        float p[3];
        for (int k = 0; k < 3; k++)
            p[k] = d->a[k] + t * axis[k] + coil * (cosf(theta) * u[k] + sinf(theta) * v[k]);
        if (i > 0)
            add_instance(r, r->frustum, prev, p, d->radius2, d->radius2, d->color);
        add_instance(r, r->sphere, p, p, d->radius2, d->radius2, d->color);
        memcpy(prev, p, sizeof prev);
    }
}

static void collect_instances(EslRenderer *r, const EslScene *scene)
{
    for (int l = 0; l < LOD_LEVELS; l++) {
        g_array_set_size(r->frustum[l].instances, 0);
        g_array_set_size(r->sphere[l].instances, 0);
    }
    g_array_set_size(r->box.instances, 0);
    for (int i = 0; scene && i < scene->n; i++) {
        const EslDrawable *d = &scene->items[i];
        switch (d->kind) {
        case ESL_DRAW_CAPSULE:
            add_instance(r, r->frustum, d->a, d->b, d->radius, d->radius, d->color);
            add_instance(r, r->sphere, d->a, d->a, d->radius, d->radius, d->color);
            add_instance(r, r->sphere, d->b, d->b, d->radius, d->radius, d->color);
            break;
        case ESL_DRAW_CYLINDER:
            add_instance(r, r->frustum, d->a, d->b, d->radius, d->radius2, d->color);
            break;
        case ESL_DRAW_SPHERE:
            add_instance(r, r->sphere, d->a, d->a, d->radius, d->radius, d->color);
            break;
        case ESL_DRAW_HELIX:
            add_helix(r, d);
            break;
        case ESL_DRAW_BOX: {
            Instance in;
            memcpy(in.a, d->a, sizeof in.a);
            memcpy(in.b, d->b, sizeof in.b);
            in.radii[0] = d->radius;
            in.radii[1] = d->radius2;
            memcpy(in.color, d->color, sizeof in.color);
            memcpy(in.side, d->side, sizeof in.side);
            g_array_append_val(r->box.instances, in);
            break;
        }
        default:
            break;
        }
    }
}

static double nice_step(double rough)
{
    double p = pow(10.0, floor(log10(rough))), f = rough / p;
    return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * p;
}

/* Floor grid under the model, perpendicular to up; rebuilt only when the scene's bounds move. */
static void update_grid(EslRenderer *r, const EslScene *scene)
{
    float key[8] = {scene->center[0], scene->center[1], scene->center[2], scene->radius,
                    scene->up[0], scene->up[1], scene->up[2], scene->floor};
    if (memcmp(key, r->grid_key, sizeof key) == 0)
        return;
    memcpy(r->grid_key, key, sizeof key);
    vec3 e1, e2, u;
    up_basis(scene->up, e1, e2, u);
    float radius = scene->radius > 0 ? scene->radius : 1.0f;
    float step = (float)nice_step(radius / 4.0);
    int half = (int)ceilf(2.0f * radius / step);
    float extent = half * step;
    /* centre of the grid: the scene centre projected on the floor plane, snapped to the grid */
    float height = scene->floor;
    float c1 = step * roundf(glm_vec3_dot((float *)scene->center, e1) / step);
    float c2 = step * roundf(glm_vec3_dot((float *)scene->center, e2) / step);
    g_array_set_size(r->grid_vertices, 0);
    for (int axis = 0; axis < 2; axis++)
        for (int i = -half; i <= half; i++) {
            float along = i * step;
            float alpha = (i == 0) ? 0.55f : (i % 5 == 0 ? 0.35f : 0.18f);
            for (int end = -1; end <= 1; end += 2) {
                float s1 = axis ? along : end * extent, s2 = axis ? end * extent : along;
                float vert[7];
                for (int k = 0; k < 3; k++)
                    vert[k] = (c1 + s1) * e1[k] + (c2 + s2) * e2[k] + height * u[k];
                vert[3] = 0.25f;
                vert[4] = 0.28f;
                vert[5] = 0.33f;
                vert[6] = alpha;
                g_array_append_vals(r->grid_vertices, vert, 7);
            }
        }
    glBindBuffer(GL_ARRAY_BUFFER, r->grid_buffer);
    glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)(r->grid_vertices->len * sizeof(float)),
                 r->grid_vertices->data, GL_DYNAMIC_DRAW);
    r->grid_vertex_count = (GLsizei)(r->grid_vertices->len / 7);
}

static void draw_mesh(EslRenderer *r, Mesh *mesh, int level)
{
    if (mesh->instances->len == 0)
        return;
    r->stats.instances[level] += (int)mesh->instances->len;
    r->stats.triangles += (long)mesh->instances->len * (mesh->index_count / 3);
    glBindVertexArray(mesh->vao);
    glBindBuffer(GL_ARRAY_BUFFER, mesh->instance_buffer);
    glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)(mesh->instances->len * sizeof(Instance)),
                 mesh->instances->data, GL_STREAM_DRAW);
    glDrawElementsInstanced(GL_TRIANGLES, mesh->index_count, GL_UNSIGNED_INT, NULL,
                            (GLsizei)mesh->instances->len);
}

void esl_renderer_draw(EslRenderer *r, const EslScene *scene, const EslCamera *camera, int width,
                       int height)
{
    glViewport(0, 0, width, height);
    glClearColor(0.95f, 0.95f, 0.96f, 1.0f);
    glClearDepth(1.0);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_LESS);
    glEnable(GL_CULL_FACE); /* every mesh is closed and wound counter-clockwise outwards */
    glCullFace(GL_BACK);

    mat4 vp;
    camera_matrices(camera, (float)width / (float)MAX(height, 1), scene, vp);
    vec3 eye, light, dir;
    esl_camera_eye(camera, eye);
    view_direction(camera, dir);
    /* light from above-behind the viewer */
    for (int k = 0; k < 3; k++)
        light[k] = dir[k] + 0.8f * camera->up[k];

    glm_vec3_copy(eye, r->eye);
    r->pixels_per_unit = (float)height / (2.0f * tanf(camera->fov / 2.0f));
    collect_instances(r, scene);
    glUseProgram(r->mesh_program);
    glUniformMatrix4fv(r->mesh_vp, 1, GL_FALSE, (const float *)vp);
    glUniform3fv(r->mesh_eye, 1, eye);
    glUniform3fv(r->mesh_light, 1, light);
    memset(&r->stats, 0, sizeof r->stats);
    glUniform1i(r->mesh_mode, 0);
    for (int l = 0; l < LOD_LEVELS; l++)
        draw_mesh(r, &r->frustum[l], l);
    glUniform1i(r->mesh_mode, 1);
    for (int l = 0; l < LOD_LEVELS; l++)
        draw_mesh(r, &r->sphere[l], l);
    glUniform1i(r->mesh_mode, 2);
    draw_mesh(r, &r->box, 0);

    if (scene && scene->n_surface > 0) {
        glDisable(GL_CULL_FACE); /* the road is seen from both sides */
        glUseProgram(r->surface_program);
        glUniformMatrix4fv(r->surface_vp, 1, GL_FALSE, (const float *)vp);
        glUniform3fv(r->surface_eye, 1, eye);
        glUniform3fv(r->surface_light, 1, light);
        glBindVertexArray(r->surface_vao);
        glBindBuffer(GL_ARRAY_BUFFER, r->surface_buffer);
        glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)(scene->n_surface * sizeof(EslSurfaceVertex)),
                     scene->surface, GL_STREAM_DRAW);
        glDrawArrays(GL_TRIANGLES, 0, scene->n_surface);
        r->stats.triangles += scene->n_surface / 3;
        glEnable(GL_CULL_FACE);
    }

    if (r->show_grid && scene) {
        update_grid(r, scene);
        glEnable(GL_BLEND);
        glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
        glDepthMask(GL_FALSE);
        glUseProgram(r->grid_program);
        glUniformMatrix4fv(r->grid_vp, 1, GL_FALSE, (const float *)vp);
        glBindVertexArray(r->grid_vao);
        glDrawArrays(GL_LINES, 0, r->grid_vertex_count);
        glDepthMask(GL_TRUE);
        glDisable(GL_BLEND);
    }
    glBindVertexArray(0);
    glUseProgram(0);
}

void esl_renderer_get_stats(const EslRenderer *r, EslRenderStats *stats)
{
    *stats = r->stats;
}

/* ---- offscreen ------------------------------------------------------------------------- */

gboolean esl_renderer_set_offscreen_size(EslRenderer *r, int width, int height, GError **error)
{
    if (width <= 0 || height <= 0 || width > 16384 || height > 16384) {
        g_set_error(error, ESL_RENDERER_ERROR, 0, "invalid image size %dx%d", width, height);
        return FALSE;
    }
    if (width == r->off_width && height == r->off_height)
        return TRUE;
    offscreen_free(r);
    GLint previous = 0;
    glGetIntegerv(GL_FRAMEBUFFER_BINDING, &previous);
    GLint max_samples = 0;
    glGetIntegerv(GL_MAX_SAMPLES, &max_samples);
    GLsizei samples = MIN(OFFSCREEN_SAMPLES, max_samples);

    glGenFramebuffers(1, &r->off_msaa_fbo);
    glGenRenderbuffers(1, &r->off_msaa_color);
    glGenRenderbuffers(1, &r->off_msaa_depth);
    glBindRenderbuffer(GL_RENDERBUFFER, r->off_msaa_color);
    glRenderbufferStorageMultisample(GL_RENDERBUFFER, samples, GL_RGBA8, width, height);
    glBindRenderbuffer(GL_RENDERBUFFER, r->off_msaa_depth);
    glRenderbufferStorageMultisample(GL_RENDERBUFFER, samples, GL_DEPTH_COMPONENT24, width,
                                     height);
    glBindFramebuffer(GL_FRAMEBUFFER, r->off_msaa_fbo);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER,
                              r->off_msaa_color);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER,
                              r->off_msaa_depth);
    GLenum status_msaa = glCheckFramebufferStatus(GL_FRAMEBUFFER);

    glGenFramebuffers(1, &r->off_resolve_fbo);
    glGenRenderbuffers(1, &r->off_resolve_color);
    glBindRenderbuffer(GL_RENDERBUFFER, r->off_resolve_color);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, width, height);
    glBindFramebuffer(GL_FRAMEBUFFER, r->off_resolve_fbo);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER,
                              r->off_resolve_color);
    GLenum status_resolve = glCheckFramebufferStatus(GL_FRAMEBUFFER);
    glBindFramebuffer(GL_FRAMEBUFFER, (GLuint)previous);
    if (status_msaa != GL_FRAMEBUFFER_COMPLETE || status_resolve != GL_FRAMEBUFFER_COMPLETE) {
        g_set_error(error, ESL_RENDERER_ERROR, 0,
                    "offscreen framebuffer incomplete (0x%x, 0x%x)", status_msaa,
                    status_resolve);
        offscreen_free(r);
        return FALSE;
    }
    r->off_width = width;
    r->off_height = height;
    return TRUE;
}

gboolean esl_renderer_render_offscreen(EslRenderer *r, const EslScene *scene,
                                       const EslCamera *camera, guint8 *rgba, GError **error)
{
    if (!r->off_msaa_fbo) {
        g_set_error(error, ESL_RENDERER_ERROR, 0, "no offscreen framebuffer: set its size first");
        return FALSE;
    }
    GLint previous = 0;
    glGetIntegerv(GL_FRAMEBUFFER_BINDING, &previous);
    int w = r->off_width, h = r->off_height;
    glBindFramebuffer(GL_FRAMEBUFFER, r->off_msaa_fbo);
    esl_renderer_draw(r, scene, camera, w, h);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, r->off_msaa_fbo);
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, r->off_resolve_fbo);
    glBlitFramebuffer(0, 0, w, h, 0, 0, w, h, GL_COLOR_BUFFER_BIT, GL_NEAREST);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, r->off_resolve_fbo);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadPixels(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, rgba);
    glBindFramebuffer(GL_FRAMEBUFFER, (GLuint)previous);
    GLenum gl_error = glGetError();
    if (gl_error != GL_NO_ERROR) {
        g_set_error(error, ESL_RENDERER_ERROR, 0, "OpenGL error 0x%x while rendering", gl_error);
        return FALSE;
    }
    /* GL rows are bottom-up */
    g_autofree guint8 *row = g_malloc((gsize)w * 4);
    for (int y = 0; y < h / 2; y++) {
        guint8 *top = rgba + (gsize)y * w * 4, *bottom = rgba + (gsize)(h - 1 - y) * w * 4;
        memcpy(row, top, (gsize)w * 4);
        memcpy(top, bottom, (gsize)w * 4);
        memcpy(bottom, row, (gsize)w * 4);
    }
    return TRUE;
}

/* ---- headless context (EGL) ------------------------------------------------------------ */

struct EslGlHeadless {
    EGLDisplay display;
    EGLContext context;
    EGLSurface surface;
};

static gboolean has_word(const char *list, const char *word)
{
    if (!list)
        return FALSE;
    size_t n = strlen(word);
    for (const char *p = strstr(list, word); p; p = strstr(p + 1, word))
        if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
            return TRUE;
    return FALSE;
}

EslGlHeadless *esl_gl_headless_new(GError **error)
{
    EslGlHeadless *ctx = g_new0(EslGlHeadless, 1);
    const char *client = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
    if (has_word(client, "EGL_MESA_platform_surfaceless"))
        ctx->display = eglGetPlatformDisplayEXT(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY,
                                                NULL);
    if (ctx->display == EGL_NO_DISPLAY)
        ctx->display = eglGetDisplay(EGL_DEFAULT_DISPLAY);
    EGLint major = 0, minor = 0;
    if (ctx->display == EGL_NO_DISPLAY || !eglInitialize(ctx->display, &major, &minor)) {
        g_set_error(error, ESL_RENDERER_ERROR, 0,
                    "no EGL display for headless rendering (EGL error 0x%x)", eglGetError());
        g_free(ctx);
        return NULL;
    }
    const EGLint config_attribs[] = {EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_SURFACE_TYPE,
                                     EGL_PBUFFER_BIT, EGL_NONE};
    const EGLint context_attribs[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 3,
                                      EGL_CONTEXT_OPENGL_PROFILE_MASK,
                                      EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE};
    EGLConfig config = NULL;
    EGLint nconfigs = 0;
    if (!eglBindAPI(EGL_OPENGL_API) ||
        !eglChooseConfig(ctx->display, config_attribs, &config, 1, &nconfigs) || nconfigs < 1 ||
        (ctx->context = eglCreateContext(ctx->display, config, EGL_NO_CONTEXT,
                                         context_attribs)) == EGL_NO_CONTEXT) {
        g_set_error(error, ESL_RENDERER_ERROR, 0,
                    "cannot create an OpenGL 3.3 core context with EGL %d.%d (EGL error 0x%x)",
                    major, minor, eglGetError());
        esl_gl_headless_free(ctx);
        return NULL;
    }
    const char *extensions = eglQueryString(ctx->display, EGL_EXTENSIONS);
    if (!has_word(extensions, "EGL_KHR_surfaceless_context")) {
        const EGLint pbuffer_attribs[] = {EGL_WIDTH, 1, EGL_HEIGHT, 1, EGL_NONE};
        ctx->surface = eglCreatePbufferSurface(ctx->display, config, pbuffer_attribs);
    }
    EGLSurface s = ctx->surface ? ctx->surface : EGL_NO_SURFACE;
    if (!eglMakeCurrent(ctx->display, s, s, ctx->context)) {
        g_set_error(error, ESL_RENDERER_ERROR, 0, "cannot make the EGL context current (0x%x)",
                    eglGetError());
        esl_gl_headless_free(ctx);
        return NULL;
    }
    return ctx;
}

void esl_gl_headless_free(EslGlHeadless *ctx)
{
    if (!ctx)
        return;
    if (ctx->display != EGL_NO_DISPLAY) {
        eglMakeCurrent(ctx->display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
        if (ctx->surface)
            eglDestroySurface(ctx->display, ctx->surface);
        if (ctx->context)
            eglDestroyContext(ctx->display, ctx->context);
        eglTerminate(ctx->display);
    }
    g_free(ctx);
}

const char *esl_gl_renderer_name(void)
{
    return (const char *)glGetString(GL_RENDERER);
}
