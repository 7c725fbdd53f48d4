#pragma once
#include <string>
#include <vector>

class Stack {
  public:
    void push(double value);
    double pop();
    bool empty() const;

  private:
    std::vector<double> items_;
};

double eval(const std::string& expression);
