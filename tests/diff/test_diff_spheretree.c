/*
 * The sphere tree vs brute force (test_diff_kdoptree_common.h says what is
 * checked), with leaves of 4, 1, 16 and 2 triangles.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "test_diff_kdoptree_common.h"

static void *build(const mq_mesh *m, int variant)
{
    static const uint32_t leaves[KT_VARIANTS] = {4, 1, 16, 2};
    mq_spheretree_def d = mq_default_spheretree_def();
    d.max_leaf_size = leaves[variant];
    mq_spheretree *t = NULL;
    if (mq_spheretree_build(m, &d, &t, NULL) != MQ_OK)
        abort();
    return t;
}
static void destroy(void *t)
{
    mq_spheretree_destroy(t);
}
static size_t overlap(const void *t, const mq_shape *q, mq_overlap_fn fn, void *user)
{
    return mq_spheretree_overlap(t, q, fn, user);
}
static size_t overlap_array(const void *t, const mq_shape *q, uint32_t *out, size_t cap)
{
    return mq_spheretree_overlap_array(t, q, out, cap);
}
static bool overlap_any(const void *t, const mq_shape *q)
{
    return mq_spheretree_overlap_any(t, q);
}
static bool ray_closest(const void *t, const mq_ray *r, const mq_ray_query *q, mq_hit *out)
{
    return mq_spheretree_raycast_closest(t, r, q, out);
}
static bool ray_any(const void *t, const mq_ray *r, const mq_ray_query *q)
{
    return mq_spheretree_raycast_any(t, r, q);
}
static bool closest(const void *t, const vec3 p, float maxd, mq_point_hit *out)
{
    return mq_spheretree_closest_point(t, p, maxd, out);
}
static size_t collide_array(const void *a, const void *b, const mq_rigid *xf, mq_tri_pair *out, size_t cap)
{
    return mq_spheretree_collide_array(a, b, xf, out, cap);
}
static bool any_collide(const void *a, const void *b, const mq_rigid *xf)
{
    return mq_spheretree_any_collide(a, b, xf);
}
static mq_status refit(void *t, const float *positions)
{
    return mq_spheretree_refit(t, positions, NULL);
}

static const kt_api api = {"sphere",    build,   destroy, overlap,       overlap_array, overlap_any,
                           ray_closest, ray_any, closest, collide_array, any_collide,   refit};

static void overlaps_match_brute_force(void **state)
{
    (void)state;
    assert_int_equal(kt_run_overlaps(&api), 0);
}
static void rays_and_points_match_brute_force(void **state)
{
    (void)state;
    assert_int_equal(kt_run_rays_points(&api), 0);
}
static void collide_matches_brute_force(void **state)
{
    (void)state;
    assert_int_equal(kt_run_collide(&api), 0);
}
static void refit_matches_brute_force(void **state)
{
    (void)state;
    assert_int_equal(kt_run_refit(&api), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(overlaps_match_brute_force),
        cmocka_unit_test(rays_and_points_match_brute_force),
        cmocka_unit_test(collide_matches_brute_force),
        cmocka_unit_test(refit_matches_brute_force),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
