/* malloc_reverse.c - an LD_PRELOAD allocator for alloc_order_test.sh that
 * hands out blocks at *decreasing* addresses, where glibc's malloc mostly
 * hands out increasing ones: any output that follows the relative order
 * (or the hash) of heap addresses comes out different under it.
 *
 * Blocks are carved downward from one reserved region; a freed block goes
 * on a LIFO list of its 16-byte size class and is reused first (so memory
 * stays bounded on a replay that allocates per transfer).  Every block has
 * a 16-byte header holding its class, so realloc knows the old size.
 * Test-only: not thread-hardened beyond one spin lock, never returns memory.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#define HDR 16u
#define ARENA ((size_t)64 << 30) /* reserved, not committed (MAP_NORESERVE) */
#define N_CLASSES 4096u          /* classes up to 64 KiB are reused */
#define ALIGNED ((size_t)1 << 62) /* header flag: an aligned block, never reused */

typedef struct rev_heap {
    char *base, *top; /* the next block ends at top */
    void *free_list[N_CLASSES];
    int lock;
} rev_heap;

static rev_heap heap; /* the allocator's own state: one per process by nature */

static void lock(void)
{
    while (__atomic_exchange_n(&heap.lock, 1, __ATOMIC_ACQUIRE))
        ;
}

static void unlock(void) { __atomic_store_n(&heap.lock, 0, __ATOMIC_RELEASE); }

static size_t class_of(size_t n) { return (n + HDR - 1) / HDR; }

static void *carve(size_t cls)
{
    if (!heap.base) {
        void *p = mmap(NULL, ARENA, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (p == MAP_FAILED)
            return NULL;
        heap.base = p;
        heap.top = heap.base + ARENA;
    }
    size_t bytes = (cls + 1) * HDR;
    if ((size_t)(heap.top - heap.base) < bytes)
        return NULL;
    heap.top -= bytes;
    return heap.top;
}

/* Not named malloc: calloc calls it, and a compiler may turn a call of
 * malloc followed by memset back into a call of calloc. */
static void *rev_alloc(size_t n)
{
    size_t cls = class_of(n ? n : 1);
    if (cls > SIZE_MAX / HDR - 1) {
        errno = ENOMEM;
        return NULL;
    }
    lock();
    char *b;
    if (cls < N_CLASSES && heap.free_list[cls]) {
        b = heap.free_list[cls];
        heap.free_list[cls] = *(void **)(b + HDR);
    } else {
        b = carve(cls);
    }
    unlock();
    if (!b) {
        errno = ENOMEM;
        return NULL;
    }
    *(size_t *)b = cls;
    return b + HDR;
}

void *malloc(size_t n) { return rev_alloc(n); }

void free(void *p)
{
    if (!p)
        return;
    char *b = (char *)p - HDR;
    size_t cls = *(size_t *)b;
    if (cls >= N_CLASSES)
        return;
    lock();
    *(void **)p = heap.free_list[cls];
    heap.free_list[cls] = b;
    unlock();
}

void *calloc(size_t k, size_t n)
{
    if (n && k > SIZE_MAX / n) {
        errno = ENOMEM;
        return NULL;
    }
    void *p = rev_alloc(k * n);
    if (p)
        memset(p, 0, k * n);
    return p;
}

void *realloc(void *p, size_t n)
{
    if (!p)
        return rev_alloc(n);
    size_t old = (*(size_t *)((char *)p - HDR) & ~ALIGNED) * HDR;
    void *q = rev_alloc(n);
    if (q) {
        memcpy(q, p, old < n ? old : n);
        free(p);
    }
    return q;
}

/* Alignments above 16 (posix_memalign, aligned_alloc, memalign): rare in
 * ccsim and its libraries; over-allocate and never reuse the block
 * (the flag makes free() skip it). */
static void *aligned(size_t align, size_t n)
{
    if (align <= HDR)
        return rev_alloc(n);
    if (n > SIZE_MAX - align) {
        errno = ENOMEM;
        return NULL;
    }
    lock();
    char *b = carve(class_of(n + align));
    unlock();
    if (!b) {
        errno = ENOMEM;
        return NULL;
    }
    uintptr_t u = ((uintptr_t)b + HDR + align - 1) & ~(uintptr_t)(align - 1);
    *(size_t *)(u - HDR) = ALIGNED | class_of(n);
    return (void *)u;
}

int posix_memalign(void **out, size_t align, size_t n)
{
    void *p = aligned(align, n);
    if (!p)
        return ENOMEM;
    *out = p;
    return 0;
}

void *aligned_alloc(size_t align, size_t n) { return aligned(align, n); }
void *memalign(size_t align, size_t n) { return aligned(align, n); }
