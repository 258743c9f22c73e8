#include <curl/curl.h>
#include <stdlib.h>
#include <string.h>

static inline CURLcode puff_curl_global_init(void) { return curl_global_init(CURL_GLOBAL_DEFAULT); }

/* The answer's Date header (the server's clock, for skew), or NULL. */
static inline const char *puff_curl_date_header(CURL *handle) {
    struct curl_header *header = NULL;
    if (curl_easy_header(handle, "Date", 0, CURLH_HEADER, -1, &header) != CURLHE_OK) return NULL;
    return header->value;
}

/* curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call: one typed wrapper
 * for each kind of argument Puff passes. */

static inline CURLcode puff_curl_set_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode puff_curl_set_offset(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode puff_curl_set_pointer(CURL *handle, CURLoption option, const void *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode puff_curl_response_code(CURL *handle, long *code) {
    return curl_easy_getinfo(handle, CURLINFO_RESPONSE_CODE, code);
}

/* A response body: grown by copying into a new block and zeroing the old one (an answer may hold
 * a token or a transit plaintext, so no copy is left behind in freed memory), capped at `limit`. */
struct puff_curl_body {
    unsigned char *bytes;
    size_t count;
    size_t capacity;
    size_t limit;
};

static inline void puff_curl_body_free(struct puff_curl_body *body) {
    if (body->bytes != NULL) {
        explicit_bzero(body->bytes, body->capacity);
        free(body->bytes);
    }
    body->bytes = NULL;
    body->count = 0;
    body->capacity = 0;
}

/* CURLOPT_WRITEFUNCTION: returning less than given makes libcurl stop with CURLE_WRITE_ERROR. */
static size_t puff_curl_body_write(char *data, size_t size, size_t items, void *userdata) {
    struct puff_curl_body *body = userdata;
    size_t length = size * items;
    if (length > body->limit - body->count) return 0;
    if (body->count + length > body->capacity) {
        size_t capacity = body->capacity < 4096 ? 4096 : body->capacity;
        while (capacity < body->count + length) capacity *= 2;
        if (capacity > body->limit) capacity = body->limit;
        unsigned char *grown = malloc(capacity);
        if (grown == NULL) return 0;
        if (body->count > 0) memcpy(grown, body->bytes, body->count);
        size_t count = body->count;
        puff_curl_body_free(body);
        body->bytes = grown;
        body->count = count;
        body->capacity = capacity;
    }
    memcpy(body->bytes + body->count, data, length);
    body->count += length;
    return length;
}

static inline CURLcode puff_curl_collect_body(CURL *handle, struct puff_curl_body *body) {
    CURLcode code = curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, puff_curl_body_write);
    return code != CURLE_OK ? code : curl_easy_setopt(handle, CURLOPT_WRITEDATA, body);
}

/* Zeroes every header line of `list` (one holds the token) before freeing it. */
static inline void puff_curl_slist_wipe_free(struct curl_slist *list) {
    for (struct curl_slist *item = list; item != NULL; item = item->next) {
        if (item->data != NULL) explicit_bzero(item->data, strlen(item->data));
    }
    curl_slist_free_all(list);
}
