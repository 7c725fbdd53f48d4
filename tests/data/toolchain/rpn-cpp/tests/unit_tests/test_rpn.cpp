#include <gtest/gtest.h>

#include <stdexcept>

#include "rpn.h"

TEST(Stack, PushPop) {
    Stack stack;
    EXPECT_TRUE(stack.empty());
    stack.push(1.5);
    stack.push(2);
    EXPECT_EQ(stack.pop(), 2);
    EXPECT_EQ(stack.pop(), 1.5);
    EXPECT_TRUE(stack.empty());
}

TEST(Stack, PopEmptyThrows) {
    Stack stack;
    EXPECT_THROW(stack.pop(), std::runtime_error);
}

TEST(Eval, Arithmetic) {
    EXPECT_DOUBLE_EQ(eval("3 4 + 2 *"), 14);
    EXPECT_DOUBLE_EQ(eval("10 4 -"), 6);
    EXPECT_DOUBLE_EQ(eval("5 2 /"), 2.5);
}

TEST(Eval, BadToken) {
    EXPECT_THROW(eval("1 x +"), std::invalid_argument);
}
