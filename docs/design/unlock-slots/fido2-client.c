// libfido2 client over a SOCK_SEQPACKET socket: each message one 64-byte CTAPHID report.
// usage: client SOCKET enrol CREDFILE [PIN]  |  client SOCKET unlock CREDFILE SALTHEX [PIN]
#include <fido.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>

static int writes65 = 0, writesOther = 0;
static double ms(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e3 + t.tv_nsec / 1e6; }

static void *sock_open(const char *path) {
    int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    struct sockaddr_un a = { .sun_family = AF_UNIX };
    strncpy(a.sun_path, path, sizeof a.sun_path - 1);
    if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) < 0) { if (fd >= 0) close(fd); return NULL; }
    int *h = malloc(sizeof *h); *h = fd; return h;
}
static void sock_close(void *h) { close(*(int *)h); free(h); }
static int sock_read(void *h, unsigned char *buf, size_t len, int ms_) {
    struct pollfd p = { .fd = *(int *)h, .events = POLLIN };
    if (poll(&p, 1, ms_) != 1) return -1;
    ssize_t n = recv(*(int *)h, buf, len, 0);
    return n == 64 ? (int)n : -1;
}
static int sock_write(void *h, const unsigned char *buf, size_t len) {
    if (len == 65) writes65++; else writesOther++;
    if (len != 65 || buf[0] != 0) return -1;   // report id first: drop it
    return send(*(int *)h, buf + 1, 64, MSG_NOSIGNAL) == 64 ? (int)len : -1;
}

static fido_dev_t *openDev(const char *path) {
    fido_dev_io_t io = { sock_open, sock_close, sock_read, sock_write };
    fido_dev_t *dev = fido_dev_new();
    int r;
    if ((r = fido_dev_set_io_functions(dev, &io)) != FIDO_OK || (r = fido_dev_open(dev, path)) != FIDO_OK) {
        fprintf(stderr, "open: %s\n", fido_strerr(r)); exit(1);
    }
    return dev;
}

int main(int argc, char **argv) {
    fido_init(getenv("FIDO_DEBUG") ? FIDO_DEBUG : 0);
    unsigned char cdh[32] = { 0 }; int r; double t0 = ms();
    fido_dev_t *dev = openDev(argv[1]);
    double t1 = ms();
    fprintf(stderr, "fido2=%d pin=%d protocol? uv=%d\n", fido_dev_is_fido2(dev), fido_dev_has_pin(dev), fido_dev_has_uv(dev));
    if (!strcmp(argv[2], "enrol")) {
        fido_cred_t *cred = fido_cred_new();
        unsigned char user[16] = { 1 };
        fido_cred_set_type(cred, COSE_ES256);
        fido_cred_set_clientdata_hash(cred, cdh, sizeof cdh);
        fido_cred_set_rp(cred, "io.puff.vault", "Puff");
        fido_cred_set_user(cred, user, sizeof user, "puff", NULL, NULL);
        fido_cred_set_extensions(cred, FIDO_EXT_HMAC_SECRET);
        fido_cred_set_rk(cred, FIDO_OPT_FALSE);
        if ((r = fido_dev_make_cred(dev, cred, argc > 4 ? argv[4] : NULL)) != FIDO_OK) { fprintf(stderr, "make_cred: %s\n", fido_strerr(r)); return 2; }
        FILE *f = fopen(argv[3], "wb"); fwrite(fido_cred_id_ptr(cred), 1, fido_cred_id_len(cred), f); fclose(f);
        fprintf(stderr, "enrolled: id %zu bytes, fmt %s, ext 0x%x, flags 0x%x; open %.1f ms, make_cred %.1f ms\n",
            fido_cred_id_len(cred), fido_cred_fmt(cred), fido_cred_flags(cred), fido_cred_flags(cred), t1 - t0, ms() - t1);
        fido_cred_free(&cred);
    } else {
        unsigned char id[256], salt[32]; FILE *f = fopen(argv[3], "rb"); size_t n = fread(id, 1, sizeof id, f); fclose(f);
        for (int i = 0; i < 32; i++) sscanf(argv[4] + 2 * i, "%2hhx", &salt[i]);
        fido_assert_t *a = fido_assert_new();
        fido_assert_set_clientdata_hash(a, cdh, sizeof cdh);
        fido_assert_set_rp(a, "io.puff.vault");
        fido_assert_allow_cred(a, id, n);
        fido_assert_set_extensions(a, FIDO_EXT_HMAC_SECRET);
        fido_assert_set_hmac_salt(a, salt, sizeof salt);
        fido_assert_set_up(a, FIDO_OPT_TRUE);
        if ((r = fido_dev_get_assert(dev, a, argc > 5 ? argv[5] : NULL)) != FIDO_OK) { fprintf(stderr, "get_assert: %s (%d)\n", fido_strerr(r), r); return 3; }
        const unsigned char *s = fido_assert_hmac_secret_ptr(a, 0);
        for (size_t i = 0; i < fido_assert_hmac_secret_len(a, 0); i++) printf("%02x", s[i]);
        printf("\n");
        fprintf(stderr, "assert flags 0x%x; open %.1f ms, get_assert %.1f ms\n", fido_assert_flags(a, 0), t1 - t0, ms() - t1);
        fido_assert_free(&a);
    }
    fprintf(stderr, "writes of 65 bytes: %d, other sizes: %d\n", writes65, writesOther);
    fido_dev_close(dev); fido_dev_free(&dev);
    return 0;
}
