#include <fstream>
#include <iostream>
#include <string>

#include "rpn.h"

int main(int argc, char** argv) {
    if (argc != 2) {
        std::cerr << "usage: rpn FILE\n";
        return 2;
    }
    std::ifstream in(argv[1]);
    std::string line;
    while (std::getline(in, line)) {
        std::cout << eval(line) << "\n";
    }
    return 0;
}
