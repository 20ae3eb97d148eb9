/* Comparing hit records in tests. Include after <cmocka.h> and <meshquery/types.h> (and
 * <meshquery/scene.h> for scene hits). */
#ifndef MQ_TEST_HITS_H
#define MQ_TEST_HITS_H

/* Every field of two hits bit for bit, field by field (mq_hit has padding bytes). */
static inline void mq_test_assert_same_hit(const mq_hit *a, const mq_hit *b)
{
    assert_memory_equal(&a->t, &b->t, sizeof a->t);
    assert_memory_equal(a->point, b->point, sizeof a->point);
    assert_memory_equal(a->normal, b->normal, sizeof a->normal);
    assert_memory_equal(&a->u, &b->u, sizeof a->u);
    assert_memory_equal(&a->v, &b->v, sizeof a->v);
    assert_int_equal(a->triangle, b->triangle);
    assert_int_equal(a->face, b->face);
    assert_int_equal(a->back_face, b->back_face);
    assert_int_equal(a->has_shading_normal, b->has_shading_normal);
    assert_int_equal(a->has_uv, b->has_uv);
    assert_memory_equal(a->shading_normal, b->shading_normal, sizeof a->shading_normal);
    assert_memory_equal(a->uv, b->uv, sizeof a->uv);
    assert_int_equal(a->group, b->group);
    assert_int_equal(a->object, b->object);
    assert_int_equal(a->material, b->material);
}

#if defined(MESHQUERY_SCENE_H)
/* Every field of two scene hits bit for bit (mq_scene_hit has padding bytes). */
static inline void mq_test_assert_same_scene_hit(const mq_scene_hit *a, const mq_scene_hit *b)
{
    assert_memory_equal(&a->t, &b->t, sizeof a->t);
    assert_memory_equal(a->point, b->point, sizeof a->point);
    assert_memory_equal(a->normal, b->normal, sizeof a->normal);
    assert_memory_equal(a->shading_normal, b->shading_normal, sizeof a->shading_normal);
    assert_memory_equal(&a->u, &b->u, sizeof a->u);
    assert_memory_equal(&a->v, &b->v, sizeof a->v);
    assert_memory_equal(a->uv, b->uv, sizeof a->uv);
    assert_int_equal(a->instance, b->instance);
    assert_int_equal(a->triangle, b->triangle);
    assert_int_equal(a->face, b->face);
    assert_int_equal(a->group, b->group);
    assert_int_equal(a->object, b->object);
    assert_int_equal(a->material, b->material);
    assert_int_equal(a->user_id, b->user_id);
    assert_int_equal(a->back_face, b->back_face);
    assert_int_equal(a->has_shading_normal, b->has_shading_normal);
    assert_int_equal(a->has_uv, b->has_uv);
}
#endif

#endif
