// Minimal ESAPI seal/unseal of 32 bytes, optionally bound to sha256 PCRs (bitmask arg).
// usage: seal TCTI seal   OUTBLOB PCRMASK  (reads 32 bytes on stdin)
//        seal TCTI unseal INBLOB          (writes the secret on stdout)
#include <tss2/tss2_esys.h>
#include <tss2/tss2_tctildr.h>
#include <tss2/tss2_mu.h>
#include <tss2/tss2_rc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CHECK(x) do { TSS2_RC r_ = (x); if (r_ != TSS2_RC_SUCCESS) { fprintf(stderr, "%s: 0x%x %s\n", #x, r_, Tss2_RC_Decode(r_)); goto out; } } while (0)

static double ms(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e3 + t.tv_nsec / 1e6; }

static TPM2B_PUBLIC primaryTemplate(void) {
    TPM2B_PUBLIC t = { .publicArea = {
        .type = TPM2_ALG_ECC, .nameAlg = TPM2_ALG_SHA256,
        .objectAttributes = TPMA_OBJECT_RESTRICTED | TPMA_OBJECT_DECRYPT | TPMA_OBJECT_FIXEDTPM |
            TPMA_OBJECT_FIXEDPARENT | TPMA_OBJECT_SENSITIVEDATAORIGIN | TPMA_OBJECT_USERWITHAUTH | TPMA_OBJECT_NODA,
        .parameters.eccDetail = { .symmetric = { .algorithm = TPM2_ALG_AES, .keyBits.aes = 128, .mode.aes = TPM2_ALG_CFB },
            .scheme.scheme = TPM2_ALG_NULL, .curveID = TPM2_ECC_NIST_P256, .kdf.scheme = TPM2_ALG_NULL } } };
    return t;
}

static TPML_PCR_SELECTION pcrs(uint32_t mask) {
    TPML_PCR_SELECTION s = { .count = 1, .pcrSelections[0] = { .hash = TPM2_ALG_SHA256, .sizeofSelect = 3 } };
    for (int i = 0; i < 24; i++) if (mask & (1u << i)) s.pcrSelections[0].pcrSelect[i / 8] |= 1 << (i % 8);
    return s;
}

// A policy session (trial or real) with PolicyPCR on the current values.
static TSS2_RC pcrSession(ESYS_CONTEXT *ctx, uint32_t mask, TPM2_SE type, ESYS_TR *session, TPM2B_DIGEST **digest) {
    TPMT_SYM_DEF sym = { .algorithm = TPM2_ALG_AES, .keyBits.aes = 128, .mode.aes = TPM2_ALG_CFB };
    TSS2_RC r = Esys_StartAuthSession(ctx, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE,
        NULL, type, &sym, TPM2_ALG_SHA256, session);
    if (r) return r;
    TPML_PCR_SELECTION sel = pcrs(mask);
    TPM2B_DIGEST empty = { .size = 0 };  // the TPM hashes the current PCR values itself
    r = Esys_PolicyPCR(ctx, *session, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE, &empty, &sel);
    if (r) return r;
    if (digest) r = Esys_PolicyGetDigest(ctx, *session, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE, digest);
    return r;
}

int main(int argc, char **argv) {
    if (argc < 4) return 2;
    int rc = 1; double t0 = ms();
    TSS2_TCTI_CONTEXT *tcti = NULL; ESYS_CONTEXT *ctx = NULL;
    ESYS_TR primary = ESYS_TR_NONE, object = ESYS_TR_NONE, session = ESYS_TR_NONE;
    CHECK(Tss2_TctiLdr_Initialize(argv[1], &tcti));
    CHECK(Esys_Initialize(&ctx, tcti, NULL));
    double t1 = ms();
    TPM2B_SENSITIVE_CREATE noAuth = { 0 }; TPM2B_DATA noOutside = { 0 }; TPML_PCR_SELECTION noPcr = { 0 };
    TPM2B_PUBLIC tmpl = primaryTemplate();
    CHECK(Esys_CreatePrimary(ctx, ESYS_TR_RH_OWNER, ESYS_TR_PASSWORD, ESYS_TR_NONE, ESYS_TR_NONE,
        &noAuth, &tmpl, &noOutside, &noPcr, &primary, NULL, NULL, NULL, NULL));
    double t2 = ms();
    if (!strcmp(argv[2], "seal")) {
        uint32_t mask = argc > 4 ? strtoul(argv[4], NULL, 0) : 0;
        TPM2B_SENSITIVE_CREATE data = { 0 };
        data.sensitive.data.size = fread(data.sensitive.data.buffer, 1, 32, stdin);
        TPM2B_PUBLIC sealed = { .publicArea = { .type = TPM2_ALG_KEYEDHASH, .nameAlg = TPM2_ALG_SHA256,
            .objectAttributes = TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT | TPMA_OBJECT_NODA,
            .parameters.keyedHashDetail.scheme.scheme = TPM2_ALG_NULL } };
        if (mask) {
            TPM2B_DIGEST *policy = NULL;
            CHECK(pcrSession(ctx, mask, TPM2_SE_TRIAL, &session, &policy));
            sealed.publicArea.authPolicy = *policy; free(policy);
            Esys_FlushContext(ctx, session); session = ESYS_TR_NONE;
        } else sealed.publicArea.objectAttributes |= TPMA_OBJECT_USERWITHAUTH;
        TPM2B_PUBLIC *pub = NULL; TPM2B_PRIVATE *priv = NULL;
        CHECK(Esys_Create(ctx, primary, ESYS_TR_PASSWORD, ESYS_TR_NONE, ESYS_TR_NONE, &data, &sealed, &noOutside,
            &noPcr, &priv, &pub, NULL, NULL, NULL));
        uint8_t blob[1024]; size_t off = 0;
        CHECK(Tss2_MU_TPM2B_PUBLIC_Marshal(pub, blob, sizeof blob, &off));
        CHECK(Tss2_MU_TPM2B_PRIVATE_Marshal(priv, blob, sizeof blob, &off));
        FILE *f = fopen(argv[3], "wb"); fwrite(blob, 1, off, f); fclose(f);
        fprintf(stderr, "sealed: blob %zu bytes (public %u, private %u); connect %.1f ms, primary %.1f ms, create %.1f ms\n",
            off, pub->size, priv->size, t1 - t0, t2 - t1, ms() - t2);
        free(pub); free(priv);
    } else {
        uint8_t blob[1024]; FILE *f = fopen(argv[3], "rb"); size_t n = fread(blob, 1, sizeof blob, f); fclose(f);
        TPM2B_PUBLIC pub = { 0 }; TPM2B_PRIVATE priv = { 0 }; size_t off = 0;
        CHECK(Tss2_MU_TPM2B_PUBLIC_Unmarshal(blob, n, &off, &pub));
        CHECK(Tss2_MU_TPM2B_PRIVATE_Unmarshal(blob, n, &off, &priv));
        CHECK(Esys_Load(ctx, primary, ESYS_TR_PASSWORD, ESYS_TR_NONE, ESYS_TR_NONE, &priv, &pub, &object));
        double t3 = ms();
        ESYS_TR auth = ESYS_TR_PASSWORD;
        uint32_t mask = argc > 4 ? strtoul(argv[4], NULL, 0) : 0;
        if (mask) { CHECK(pcrSession(ctx, mask, TPM2_SE_POLICY, &session, NULL)); auth = session; }
        TPM2B_SENSITIVE_DATA *out = NULL;
        CHECK(Esys_Unseal(ctx, object, auth, ESYS_TR_NONE, ESYS_TR_NONE, &out));
        fwrite(out->buffer, 1, out->size, stdout);
        fprintf(stderr, "unsealed %u bytes; connect %.1f ms, primary %.1f ms, load %.1f ms, unseal %.1f ms\n",
            out->size, t1 - t0, t2 - t1, t3 - t2, ms() - t3);
        Esys_Free(out);
    }
    rc = 0;
out:
    // No resource manager on swtpm: flush every transient object and session, on every path.
    if (ctx) {
        if (session != ESYS_TR_NONE) Esys_FlushContext(ctx, session);
        if (object != ESYS_TR_NONE) Esys_FlushContext(ctx, object);
        if (primary != ESYS_TR_NONE) Esys_FlushContext(ctx, primary);
        Esys_Finalize(&ctx);
    }
    if (tcti) Tss2_TctiLdr_Finalize(&tcti);  // closes the socket: the next client can connect
    return rc;
}
