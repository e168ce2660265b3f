/* Video files with FFmpeg's libraries (esl-video.h). */
#include "esl-video.h"

#include <errno.h>
#include <string.h>

#include <gio/gio.h>
#include <glib/gstdio.h>
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/imgutils.h>
#include <libavutil/opt.h>
#include <libswscale/swscale.h>

struct EslVideo {
    char *path, *part;
    AVFormatContext *fmt;
    AVCodecContext *enc;
    AVStream *stream;
    AVFrame *frame;
    AVPacket *packet;
    struct SwsContext *sws;
    int width, height;
    int64_t next_pts;
    gboolean header_written;
};

static gboolean av_failed(int code, const char *what, const char *path, GError **error)
{
    char text[AV_ERROR_MAX_STRING_SIZE] = {0};
    av_strerror(code, text, sizeof text);
    g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED, "%s: %s: %s", path, what, text);
    return FALSE;
}

static void video_free(EslVideo *v)
{
    if (!v)
        return;
    if (v->fmt && v->fmt->pb)
        avio_closep(&v->fmt->pb);
    avformat_free_context(v->fmt);
    avcodec_free_context(&v->enc);
    av_frame_free(&v->frame);
    av_packet_free(&v->packet);
    sws_freeContext(v->sws);
    g_free(v->path);
    g_free(v->part);
    g_free(v);
}

void esl_video_abort(EslVideo *v)
{
    if (!v)
        return;
    char *part = g_strdup(v->part);
    video_free(v);
    if (part)
        g_unlink(part);
    g_free(part);
}

EslVideo *esl_video_new(const char *path, int width, int height, int fps, GError **error)
{
    const char *muxer, *encoder;
    if (g_str_has_suffix(path, ".mp4")) {
        muxer = "mp4";
        encoder = "libx264";
    } else if (g_str_has_suffix(path, ".webm")) {
        muxer = "webm";
        encoder = "libvpx-vp9";
    } else {
        g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                    "%s: a video is .mp4 (H.264) or .webm (VP9)", path);
        return NULL;
    }
    if (width < 16 || height < 16 || width > 8192 || height > 8192 || width % 2 || height % 2) {
        g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                    "%s: a video's size must be even, 16 to 8192 pixels (got %dx%d)", path,
                    width, height);
        return NULL;
    }
    if (fps < 1 || fps > 240) {
        g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                    "%s: frames per second must be 1 to 240 (got %d)", path, fps);
        return NULL;
    }
    av_log_set_level(AV_LOG_ERROR); /* the encoders' statistics are not ours to print */
    const AVCodec *codec = avcodec_find_encoder_by_name(encoder);
    if (!codec) {
        g_set_error(error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                    "%s: this FFmpeg has no %s encoder", path, encoder);
        return NULL;
    }
    EslVideo *v = g_new0(EslVideo, 1);
    v->path = g_strdup(path);
    v->part = g_strdup_printf("%s.part", path);
    v->width = width;
    v->height = height;
    int rc = avformat_alloc_output_context2(&v->fmt, NULL, muxer, v->part);
    if (rc < 0 || !v->fmt) {
        av_failed(rc, "no muxer", path, error);
        goto fail;
    }
    v->stream = avformat_new_stream(v->fmt, NULL);
    v->enc = avcodec_alloc_context3(codec);
    v->frame = av_frame_alloc();
    v->packet = av_packet_alloc();
    if (!v->stream || !v->enc || !v->frame || !v->packet) {
        g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED, "%s: out of memory", path);
        goto fail;
    }
    v->enc->width = width;
    v->enc->height = height;
    v->enc->pix_fmt = AV_PIX_FMT_YUV420P;
    v->enc->time_base = (AVRational){1, fps};
    v->enc->framerate = (AVRational){fps, 1};
    v->enc->gop_size = 2 * fps;
    v->enc->thread_count = 1; /* deterministic output; the renderer is the slow part */
    if (v->fmt->oformat->flags & AVFMT_GLOBALHEADER)
        v->enc->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    /* Rendered scenes are flat colours and sharp edges: constant quality, fast presets. */
    if (!strcmp(encoder, "libx264")) {
        av_opt_set(v->enc->priv_data, "preset", "veryfast", 0);
        av_opt_set(v->enc->priv_data, "crf", "20", 0);
    } else {
        v->enc->bit_rate = 0;
        av_opt_set(v->enc->priv_data, "crf", "32", 0);
        av_opt_set(v->enc->priv_data, "deadline", "realtime", 0);
        av_opt_set(v->enc->priv_data, "cpu-used", "8", 0);
    }
    if ((rc = avcodec_open2(v->enc, codec, NULL)) < 0) {
        av_failed(rc, encoder, path, error);
        goto fail;
    }
    if ((rc = avcodec_parameters_from_context(v->stream->codecpar, v->enc)) < 0) {
        av_failed(rc, "stream parameters", path, error);
        goto fail;
    }
    v->stream->time_base = v->enc->time_base;
    v->stream->avg_frame_rate = v->enc->framerate;
    v->frame->format = AV_PIX_FMT_YUV420P;
    v->frame->width = width;
    v->frame->height = height;
    if ((rc = av_frame_get_buffer(v->frame, 0)) < 0) {
        av_failed(rc, "frame buffer", path, error);
        goto fail;
    }
    v->sws = sws_getContext(width, height, AV_PIX_FMT_RGBA, width, height, AV_PIX_FMT_YUV420P,
                            SWS_BILINEAR, NULL, NULL, NULL);
    if (!v->sws) {
        g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED, "%s: no RGBA to YUV conversion",
                    path);
        goto fail;
    }
    if ((rc = avio_open(&v->fmt->pb, v->part, AVIO_FLAG_WRITE)) < 0) {
        av_failed(rc, "cannot create the file", v->part, error);
        goto fail;
    }
    if ((rc = avformat_write_header(v->fmt, NULL)) < 0) {
        av_failed(rc, "header", path, error);
        goto fail;
    }
    v->header_written = TRUE;
    return v;
fail:
    esl_video_abort(v);
    return NULL;
}

/* Send frame (NULL: flush) and write the packets the encoder gives back. */
static gboolean encode(EslVideo *v, AVFrame *frame, GError **error)
{
    int rc = avcodec_send_frame(v->enc, frame);
    if (rc < 0)
        return av_failed(rc, "encoding", v->path, error);
    for (;;) {
        rc = avcodec_receive_packet(v->enc, v->packet);
        if (rc == AVERROR(EAGAIN) || rc == AVERROR_EOF)
            return TRUE;
        if (rc < 0)
            return av_failed(rc, "encoding", v->path, error);
        if (v->packet->duration == 0)
            v->packet->duration = 1; /* one frame: the last frame's too, so the file lasts n/fps */
        av_packet_rescale_ts(v->packet, v->enc->time_base, v->stream->time_base);
        v->packet->stream_index = v->stream->index;
        rc = av_interleaved_write_frame(v->fmt, v->packet);
        if (rc < 0)
            return av_failed(rc, "writing", v->part, error);
    }
}

gboolean esl_video_add_frame(EslVideo *v, const guint8 *rgba, GError **error)
{
    int rc = av_frame_make_writable(v->frame);
    if (rc < 0)
        return av_failed(rc, "frame", v->path, error);
    const uint8_t *src[1] = {rgba};
    const int stride[1] = {4 * v->width};
    sws_scale(v->sws, src, stride, 0, v->height, v->frame->data, v->frame->linesize);
    v->frame->pts = v->next_pts++;
    return encode(v, v->frame, error);
}

gboolean esl_video_finish(EslVideo *v, GError **error)
{
    int rc = 0;
    if (!encode(v, NULL, error) || (rc = av_write_trailer(v->fmt)) < 0 ||
        (rc = avio_closep(&v->fmt->pb)) < 0) {
        if (error && !*error)
            av_failed(rc, "finishing", v->path, error);
        esl_video_abort(v);
        return FALSE;
    }
    if (g_rename(v->part, v->path) != 0) {
        g_set_error(error, G_IO_ERROR, g_io_error_from_errno(errno), "%s: %s", v->path,
                    g_strerror(errno));
        esl_video_abort(v);
        return FALSE;
    }
    g_clear_pointer(&v->part, g_free);
    video_free(v);
    return TRUE;
}

gboolean esl_video_probe(const char *path, EslVideoInfo *info, int frame, guint8 **rgba,
                         GError **error)
{
    memset(info, 0, sizeof *info);
    AVFormatContext *fmt = NULL;
    AVCodecContext *dec = NULL;
    AVPacket *packet = av_packet_alloc();
    AVFrame *decoded = av_frame_alloc();
    struct SwsContext *sws = NULL;
    gboolean ok = FALSE;
    int rc = avformat_open_input(&fmt, path, NULL, NULL);
    if (rc < 0) {
        av_failed(rc, "cannot open", path, error);
        goto done;
    }
    if ((rc = avformat_find_stream_info(fmt, NULL)) < 0) {
        av_failed(rc, "stream information", path, error);
        goto done;
    }
    const AVCodec *codec = NULL;
    int s = av_find_best_stream(fmt, AVMEDIA_TYPE_VIDEO, -1, -1, &codec, 0);
    if (s < 0 || !codec) {
        av_failed(s, "no video stream", path, error);
        goto done;
    }
    AVStream *st = fmt->streams[s];
    dec = avcodec_alloc_context3(codec);
    if (!dec || avcodec_parameters_to_context(dec, st->codecpar) < 0 ||
        (rc = avcodec_open2(dec, codec, NULL)) < 0) {
        av_failed(rc, "decoder", path, error);
        goto done;
    }
    info->width = dec->width;
    info->height = dec->height;
    g_strlcpy(info->codec, codec->name, sizeof info->codec);
    info->fps = st->avg_frame_rate.den ? av_q2d(st->avg_frame_rate) : 0.0;
    if (fmt->duration > 0)
        info->duration = (double)fmt->duration / AV_TIME_BASE;
    for (int flushing = 0;;) {
        if (!flushing) {
            rc = av_read_frame(fmt, packet);
            if (rc == AVERROR_EOF) {
                flushing = 1;
                avcodec_send_packet(dec, NULL);
            } else if (rc < 0) {
                av_failed(rc, "reading", path, error);
                goto done;
            } else {
                if (packet->stream_index == s)
                    avcodec_send_packet(dec, packet);
                av_packet_unref(packet);
            }
        }
        for (;;) {
            rc = avcodec_receive_frame(dec, decoded);
            if (rc == AVERROR(EAGAIN))
                break;
            if (rc == AVERROR_EOF) {
                ok = TRUE;
                goto done;
            }
            if (rc < 0) {
                av_failed(rc, "decoding", path, error);
                goto done;
            }
            if (info->frames == frame && rgba) {
                sws = sws_getContext(decoded->width, decoded->height, decoded->format,
                                     decoded->width, decoded->height, AV_PIX_FMT_RGBA,
                                     SWS_BILINEAR, NULL, NULL, NULL);
                *rgba = g_malloc((gsize)decoded->width * decoded->height * 4);
                uint8_t *dst[1] = {*rgba};
                const int stride[1] = {4 * decoded->width};
                sws_scale(sws, (const uint8_t *const *)decoded->data, decoded->linesize, 0,
                          decoded->height, dst, stride);
            }
            info->frames++;
        }
    }
done:
    sws_freeContext(sws);
    av_frame_free(&decoded);
    av_packet_free(&packet);
    avcodec_free_context(&dec);
    avformat_close_input(&fmt);
    return ok;
}
