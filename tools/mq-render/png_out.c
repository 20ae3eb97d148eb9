/*
 * PNG output through libpng. The image goes to "PATH.PID.tmp" next to PATH
 * and is renamed over PATH only once libpng and the kernel accepted every
 * byte, so an interrupted or failed run never leaves a truncated PNG behind
 * (rename within one directory is atomic). Symbolic links, devices and
 * pipes are written in place instead.
 */
#include <errno.h>
#include <fcntl.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "render.h"

typedef struct png_failure {
    char message[256];
} png_failure;

/* libpng's default handler prints and aborts on some builds; ours records the
 * message and jumps back to write_png's setjmp. */
static void on_png_error(png_structp png, png_const_charp msg)
{
    png_failure *f = png_get_error_ptr(png);
    snprintf(f->message, sizeof f->message, "%s", msg);
    png_longjmp(png, 1);
}

static void on_png_warning(png_structp png, png_const_charp msg)
{
    (void)png;
    (void)msg; /* warnings concern chunks we never write */
}

/* Kept out of write_png so that no local changes between setjmp and longjmp. */
static void write_rows(png_structp png, png_infop info, const uint8_t *rgb, uint32_t width, uint32_t height)
{
    png_set_IHDR(png, info, width, height, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
                 PNG_FILTER_TYPE_DEFAULT);
    /* zlib level 3: about as small as the default 6 on rendered images, at
     * a fraction of the time (matters at 1024x1024 and above). */
    png_set_compression_level(png, 3);
    png_write_info(png, info);
    for (uint32_t y = 0; y < height; y++)
        png_write_row(png, rgb + (size_t)y * width * 3);
    png_write_end(png, info);
}

static bool write_png(FILE *f, const uint8_t *rgb, uint32_t width, uint32_t height, png_failure *fail)
{
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, fail, on_png_error, on_png_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!png || !info) {
        snprintf(fail->message, sizeof fail->message, "out of memory");
        png_destroy_write_struct(png ? &png : NULL, NULL);
        return false;
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        return false;
    }
    png_init_io(png, f);
    write_rows(png, info, rgb, width, height);
    png_destroy_write_struct(&png, &info);
    return true;
}

bool render_write_png(const char *path, const uint8_t *rgb, uint32_t width, uint32_t height, char *err, size_t err_size)
{
    png_failure fail = {""};
    if (!strcmp(path, "-")) {
        if (!write_png(stdout, rgb, width, height, &fail) || fflush(stdout) != 0) {
            snprintf(err, err_size, "writing the PNG to standard output failed: %s",
                     fail.message[0] ? fail.message : strerror(errno));
            return false;
        }
        return true;
    }
    /* Only a plain file (or a new one) is replaced by renaming. A symbolic
     * link (/dev/stdout, a link someone keeps on purpose), a device or a pipe
     * must not be replaced by a regular file: write through it in place. */
    struct stat st;
    if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        if (S_ISDIR(st.st_mode)) {
            snprintf(err, err_size, "cannot write %s: %s", path, strerror(EISDIR));
            return false;
        }
        FILE *f = fopen(path, "wb");
        if (!f) {
            snprintf(err, err_size, "cannot write %s: %s", path, strerror(errno));
            return false;
        }
        bool ok = write_png(f, rgb, width, height, &fail);
        int saved = errno;
        if (fclose(f) != 0 && ok) {
            ok = false;
            saved = errno;
        }
        if (!ok)
            snprintf(err, err_size, "cannot write %s: %s", path, fail.message[0] ? fail.message : strerror(saved));
        return ok;
    }
    size_t tmp_size = strlen(path) + 32;
    char *tmp = malloc(tmp_size);
    if (!tmp) {
        snprintf(err, err_size, "cannot write %s: out of memory", path);
        return false;
    }
    snprintf(tmp, tmp_size, "%s.%ld.tmp", path, (long)getpid());
    /* O_EXCL: never write through a file (or link) someone else put there.
     * Mode 0666 lets the umask decide, as for any new file. */
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0666);
    FILE *f = fd >= 0 ? fdopen(fd, "wb") : NULL;
    if (!f) {
        snprintf(err, err_size, "cannot write %s: %s", path, strerror(errno));
        if (fd >= 0) {
            close(fd);
            unlink(tmp);
        }
        free(tmp);
        return false;
    }
    bool ok = write_png(f, rgb, width, height, &fail);
    int saved = errno;
    /* No fsync: the rename guards against failed and interrupted runs, which
     * is the promise; surviving a power cut is not worth its latency here. */
    if (fflush(f) != 0) {
        ok = false;
        saved = errno;
    }
    if (fclose(f) != 0 && ok) {
        ok = false;
        saved = errno;
    }
    if (ok && rename(tmp, path) != 0) {
        ok = false;
        saved = errno;
    }
    if (!ok) {
        snprintf(err, err_size, "cannot write %s: %s", path, fail.message[0] ? fail.message : strerror(saved));
        unlink(tmp);
    }
    free(tmp);
    return ok;
}
