/* Which OpenGL renderers count as software rasterizers (the window then asks GTK for its Cairo
 * renderer; ui/esl-gsk-choice.h), and a GSK_RENDERER set by the user wins. No display needed. */
#include "esl-gsk-choice.h"
#include <string.h>

#include "tap.h"

int main(void)
{
    static const char *const software[] = {
        "llvmpipe (LLVM 15.0.6, 256 bits)", "softpipe", "Software Rasterizer",
        "Mesa DRI swrast", "SWR (LLVM 12.0.0, 256 bits)"};
    static const char *const hardware[] = {
        "Mesa Intel(R) UHD Graphics 620 (KBL GT2)",
        "AMD Radeon RX 6600 (navi23, LLVM 15.0.6, DRM 3.49)",
        "NVIDIA GeForce RTX 3060/PCIe/SSE2", "virgl (Mesa 22.3.6)", "Apple M1"};
    for (size_t i = 0; i < G_N_ELEMENTS(software); i++)
        tap_ok(esl_gl_renderer_is_software(software[i]), "software: %s", software[i]);
    for (size_t i = 0; i < G_N_ELEMENTS(hardware); i++)
        tap_ok(!esl_gl_renderer_is_software(hardware[i]), "hardware: %s", hardware[i]);
    tap_ok(!esl_gl_renderer_is_software(NULL), "no renderer name: not software");

    g_setenv("GSK_RENDERER", "ngl", TRUE);
    const char *choice = esl_gsk_choose_renderer(NULL);
    tap_ok(g_str_equal(g_getenv("GSK_RENDERER"), "ngl") && strstr(choice, "ngl") &&
               strstr(choice, "GSK_RENDERER"),
           "GSK_RENDERER set by the user is kept: %s", choice);
    return tap_done();
}
