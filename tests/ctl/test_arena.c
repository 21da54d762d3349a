/* The bump allocator (ctl/base/arena.h): zeroed room aligned to 16, texts
 * packed without alignment, a large allocation that keeps the current
 * chunk's room, and release that leaves the arena usable. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "base/arena.h"

static void test_alloc_aligned_and_zeroed(void **state)
{
	struct sb_arena a = { 0 };

	(void)state;
	for (size_t n = 0; n < 3000; n++) {
		unsigned char *p = sb_arena_alloc(&a, n % 97);
		assert_non_null(p);
		assert_int_equal((uintptr_t)p % 16, 0);
		for (size_t i = 0; i < n % 97; i++)
			assert_int_equal(p[i], 0);
		memset(p, 0xff, n % 97); /* the next one is not this one's */
	}
	sb_arena_release(&a);
	assert_null(a.head);
}

static void test_texts_are_packed(void **state)
{
	struct sb_arena a = { 0 };
	char *x, *y, *z;

	(void)state;
	x = sb_arena_strndup(&a, "1000_3xyz", 6);
	y = sb_arena_strndup(&a, "events", 6);
	assert_string_equal(x, "1000_3");
	assert_string_equal(y, "events");
	assert_ptr_equal(y, x + 7); /* no rounding up to 16 */
	/* an aligned allocation after a text is aligned again */
	z = sb_arena_alloc(&a, 8);
	assert_int_equal((uintptr_t)z % 16, 0);
	assert_true(z > y);
	sb_arena_release(&a);
}

static void test_large_allocation_keeps_the_room(void **state)
{
	struct sb_arena a = { 0 };
	char *small, *big, *next;

	(void)state;
	small = sb_arena_strndup(&a, "a", 1);
	big = sb_arena_alloc(&a, 1 << 20);
	assert_non_null(big);
	memset(big, 1, 1 << 20);
	next = sb_arena_strndup(&a, "b", 1);
	assert_ptr_equal(next, small + 2); /* still the first chunk */
	assert_string_equal(small, "a");
	assert_int_equal(big[(1 << 20) - 1], 1);
	sb_arena_release(&a);
	assert_non_null(sb_arena_alloc(&a, 1)); /* usable again */
	sb_arena_release(&a);
}

static void test_too_large_is_refused(void **state)
{
	struct sb_arena a = { 0 };

	(void)state;
	assert_null(sb_arena_alloc(&a, SIZE_MAX - 8));
	assert_null(sb_arena_strndup(&a, "x", SIZE_MAX));
	sb_arena_release(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_alloc_aligned_and_zeroed),
		cmocka_unit_test(test_texts_are_packed),
		cmocka_unit_test(test_large_allocation_keeps_the_room),
		cmocka_unit_test(test_too_large_is_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
