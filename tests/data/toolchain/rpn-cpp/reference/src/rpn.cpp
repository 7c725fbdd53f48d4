#include "rpn.h"

#include <sstream>
#include <stdexcept>

void Stack::push(double value) { items_.push_back(value); }

double Stack::pop() {
    if (items_.empty()) {
        throw std::runtime_error("pop from an empty stack");
    }
    double top = items_.back();
    items_.pop_back();
    return top;
}

bool Stack::empty() const { return items_.empty(); }

double eval(const std::string& expression) {
    Stack stack;
    std::istringstream in(expression);
    std::string token;
    while (in >> token) {
        if (token == "+" || token == "-" || token == "*" || token == "/") {
            double right = stack.pop();
            double left = stack.pop();
            if (token == "+") stack.push(left + right);
            else if (token == "-") stack.push(left - right);
            else if (token == "*") stack.push(left * right);
            else stack.push(left / right);
        } else {
            std::size_t used = 0;
            double value = 0;
            try {
                value = std::stod(token, &used);
            } catch (const std::exception&) {
                used = 0;
            }
            if (used != token.size()) {
                throw std::invalid_argument("unknown token: " + token);
            }
            stack.push(value);
        }
    }
    return stack.pop();
}
