// SPDX-License-Identifier: Apache-2.0
// ESAPI seal/unseal as measured by docs/design/unlock-slots/tpm-seal.c, made a library: no output, typed
// outcomes, secrets wiped, every transient object and session flushed on every path.
#include "puff_tpm.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <tss2/tss2_esys.h>
#include <tss2/tss2_mu.h>
#include <tss2/tss2_tctildr.h>

// libtss2 writes WARNING/ERROR lines (and at higher levels, parameters) to stderr unless told not to; it
// reads TSS2_LOG once, at its first log call, so set it before any call.
static pthread_once_t quiet_once = PTHREAD_ONCE_INIT;
static void quiet_log(void) { setenv("TSS2_LOG", "all+NONE", 1); }

static void wipe(void *p, size_t n) {
    volatile uint8_t *v = p;
    while (n--) *v++ = 0;
}

/// An open TPM connection with the objects one call made, so one function can flush them all.
typedef struct {
    TSS2_TCTI_CONTEXT *tcti;
    ESYS_CONTEXT *ctx;
    ESYS_TR primary, object, session;
} connection;

static TPM2B_PUBLIC primary_template(void) {
    TPM2B_PUBLIC t = {.publicArea = {
                          .type = TPM2_ALG_ECC,
                          .nameAlg = TPM2_ALG_SHA256,
                          .objectAttributes = TPMA_OBJECT_RESTRICTED | TPMA_OBJECT_DECRYPT | TPMA_OBJECT_FIXEDTPM |
                                              TPMA_OBJECT_FIXEDPARENT | TPMA_OBJECT_SENSITIVEDATAORIGIN |
                                              TPMA_OBJECT_USERWITHAUTH | TPMA_OBJECT_NODA,
                          .parameters.eccDetail = {.symmetric = {.algorithm = TPM2_ALG_AES,
                                                       .keyBits.aes = 128,
                                                       .mode.aes = TPM2_ALG_CFB},
                              .scheme.scheme = TPM2_ALG_NULL,
                              .curveID = TPM2_ECC_NIST_P256,
                              .kdf.scheme = TPM2_ALG_NULL}}};
    return t;
}

static TPML_PCR_SELECTION pcr_selection(uint32_t mask) {
    TPML_PCR_SELECTION s = {.count = 1, .pcrSelections[0] = {.hash = TPM2_ALG_SHA256, .sizeofSelect = 3}};
    for (int i = 0; i < 24; i++)
        if (mask & (1u << i)) s.pcrSelections[0].pcrSelect[i / 8] |= (uint8_t)(1u << (i % 8));
    return s;
}

/// Opens the TCTI and creates the primary key (never persisted: recreated from the template each time).
static puff_tpm_status open_connection(const char *tcti, connection *c, uint32_t *tpm_rc) {
    pthread_once(&quiet_once, quiet_log);
    *c = (connection){NULL, NULL, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE};
    TSS2_RC r = Tss2_TctiLdr_Initialize(tcti, &c->tcti);
    if (r == TSS2_RC_SUCCESS) r = Esys_Initialize(&c->ctx, c->tcti, NULL);
    if (r != TSS2_RC_SUCCESS) {
        *tpm_rc = r;
        return PUFF_TPM_UNAVAILABLE;
    }
    TPM2B_SENSITIVE_CREATE no_auth = {0};
    TPM2B_DATA no_outside = {0};
    TPML_PCR_SELECTION no_pcr = {0};
    TPM2B_PUBLIC template = primary_template();
    r = Esys_CreatePrimary(c->ctx, ESYS_TR_RH_OWNER, ESYS_TR_PASSWORD, ESYS_TR_NONE, ESYS_TR_NONE, &no_auth,
        &template, &no_outside, &no_pcr, &c->primary, NULL, NULL, NULL, NULL);
    *tpm_rc = r;
    return r == TSS2_RC_SUCCESS ? PUFF_TPM_OK : PUFF_TPM_FAILED;
}

/// No resource manager on swtpm (and none promised elsewhere): flush everything this call made, then
/// close the TCTI so the next client can connect.
static void close_connection(connection *c) {
    if (c->ctx) {
        if (c->session != ESYS_TR_NONE) Esys_FlushContext(c->ctx, c->session);
        if (c->object != ESYS_TR_NONE) Esys_FlushContext(c->ctx, c->object);
        if (c->primary != ESYS_TR_NONE) Esys_FlushContext(c->ctx, c->primary);
        Esys_Finalize(&c->ctx);
    }
    if (c->tcti) Tss2_TctiLdr_Finalize(&c->tcti);
}

/// Starts a policy session (trial or real) with PolicyPCR on the current values of `mask`'s PCRs.
static TSS2_RC pcr_session(connection *c, uint32_t mask, TPM2_SE type, TPM2B_DIGEST **digest) {
    TPMT_SYM_DEF sym = {.algorithm = TPM2_ALG_AES, .keyBits.aes = 128, .mode.aes = TPM2_ALG_CFB};
    TSS2_RC r = Esys_StartAuthSession(c->ctx, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE,
        ESYS_TR_NONE, NULL, type, &sym, TPM2_ALG_SHA256, &c->session);
    if (r != TSS2_RC_SUCCESS) return r;
    TPML_PCR_SELECTION selection = pcr_selection(mask);
    TPM2B_DIGEST empty = {.size = 0};  // the TPM hashes the current PCR values itself
    r = Esys_PolicyPCR(c->ctx, c->session, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE, &empty, &selection);
    if (r == TSS2_RC_SUCCESS && digest)
        r = Esys_PolicyGetDigest(c->ctx, c->session, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE, digest);
    return r;
}

puff_tpm_status puff_tpm_seal(const char *tcti, const uint8_t *secret, size_t secret_len, uint32_t pcr_mask,
    uint8_t *blob, size_t blob_capacity, size_t *blob_len, uint32_t *tpm_rc) {
    *tpm_rc = 0;
    *blob_len = 0;
    if (secret_len == 0 || secret_len > PUFF_TPM_SECRET_MAX || pcr_mask > 0xFFFFFF) return PUFF_TPM_BAD_ARGUMENT;
    connection c;
    puff_tpm_status status = open_connection(tcti, &c, tpm_rc);
    TPM2B_SENSITIVE_CREATE data = {0};
    TPM2B_PUBLIC *public = NULL;
    TPM2B_PRIVATE *private = NULL;
    if (status != PUFF_TPM_OK) goto out;
    status = PUFF_TPM_FAILED;
    TPM2B_PUBLIC sealed = {.publicArea = {.type = TPM2_ALG_KEYEDHASH,
                               .nameAlg = TPM2_ALG_SHA256,
                               .objectAttributes = TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT | TPMA_OBJECT_NODA,
                               .parameters.keyedHashDetail.scheme.scheme = TPM2_ALG_NULL}};
    if (pcr_mask) {
        TPM2B_DIGEST *policy = NULL;
        if ((*tpm_rc = pcr_session(&c, pcr_mask, TPM2_SE_TRIAL, &policy)) != TSS2_RC_SUCCESS) goto out;
        sealed.publicArea.authPolicy = *policy;
        Esys_Free(policy);
        Esys_FlushContext(c.ctx, c.session);
        c.session = ESYS_TR_NONE;
    } else {
        sealed.publicArea.objectAttributes |= TPMA_OBJECT_USERWITHAUTH;
    }
    data.sensitive.data.size = (UINT16)secret_len;
    memcpy(data.sensitive.data.buffer, secret, secret_len);
    TPM2B_DATA no_outside = {0};
    TPML_PCR_SELECTION no_pcr = {0};
    *tpm_rc = Esys_Create(c.ctx, c.primary, ESYS_TR_PASSWORD, ESYS_TR_NONE, ESYS_TR_NONE, &data, &sealed,
        &no_outside, &no_pcr, &private, &public, NULL, NULL, NULL);
    if (*tpm_rc != TSS2_RC_SUCCESS) goto out;
    size_t offset = 0;
    if (Tss2_MU_TPM2B_PUBLIC_Marshal(public, blob, blob_capacity, &offset) != TSS2_RC_SUCCESS ||
        Tss2_MU_TPM2B_PRIVATE_Marshal(private, blob, blob_capacity, &offset) != TSS2_RC_SUCCESS) {
        status = PUFF_TPM_BAD_ARGUMENT;
        goto out;
    }
    *blob_len = offset;
    status = PUFF_TPM_OK;
out:
    wipe(&data, sizeof data);
    Esys_Free(public);
    Esys_Free(private);
    close_connection(&c);
    return status;
}

puff_tpm_status puff_tpm_unseal(const char *tcti, const uint8_t *blob, size_t blob_len, uint32_t pcr_mask,
    uint8_t *secret, size_t secret_capacity, size_t *secret_len, uint32_t *tpm_rc) {
    *tpm_rc = 0;
    *secret_len = 0;
    if (pcr_mask > 0xFFFFFF) return PUFF_TPM_BAD_ARGUMENT;
    // Parse before touching the TPM: a malformed blob never reaches it.
    TPM2B_PUBLIC public = {0};
    TPM2B_PRIVATE private = {0};
    size_t offset = 0;
    if (Tss2_MU_TPM2B_PUBLIC_Unmarshal(blob, blob_len, &offset, &public) != TSS2_RC_SUCCESS ||
        Tss2_MU_TPM2B_PRIVATE_Unmarshal(blob, blob_len, &offset, &private) != TSS2_RC_SUCCESS || offset != blob_len)
        return PUFF_TPM_MALFORMED_BLOB;
    connection c;
    puff_tpm_status status = open_connection(tcti, &c, tpm_rc);
    TPM2B_SENSITIVE_DATA *out = NULL;
    if (status != PUFF_TPM_OK) goto out;
    status = PUFF_TPM_FAILED;
    *tpm_rc = Esys_Load(c.ctx, c.primary, ESYS_TR_PASSWORD, ESYS_TR_NONE, ESYS_TR_NONE, &private, &public, &c.object);
    if (*tpm_rc != TSS2_RC_SUCCESS) {
        // TPM_RC_INTEGRITY on a parameter (0x1df for the private part): another TPM's seed, or altered bytes.
        if ((*tpm_rc & TPM2_RC_FMT1) && (*tpm_rc & 0x3F) == (TPM2_RC_INTEGRITY & 0x3F)) status = PUFF_TPM_OTHER_TPM;
        goto out;
    }
    ESYS_TR auth = ESYS_TR_PASSWORD;
    if (pcr_mask) {
        if ((*tpm_rc = pcr_session(&c, pcr_mask, TPM2_SE_POLICY, NULL)) != TSS2_RC_SUCCESS) goto out;
        auth = c.session;
    }
    *tpm_rc = Esys_Unseal(c.ctx, c.object, auth, ESYS_TR_NONE, ESYS_TR_NONE, &out);
    if (*tpm_rc != TSS2_RC_SUCCESS) {
        // TPM_RC_POLICY_FAIL on the session (0x99d): the PCRs moved since the seal.
        if ((*tpm_rc & TPM2_RC_FMT1) && (*tpm_rc & 0x3F) == (TPM2_RC_POLICY_FAIL & 0x3F))
            status = PUFF_TPM_PCR_CHANGED;
        goto out;
    }
    if (out->size > secret_capacity) {
        status = PUFF_TPM_BAD_ARGUMENT;
        goto out;
    }
    memcpy(secret, out->buffer, out->size);
    *secret_len = out->size;
    status = PUFF_TPM_OK;
out:
    if (out) {
        wipe(out, sizeof *out);
        Esys_Free(out);
    }
    close_connection(&c);
    return status;
}
