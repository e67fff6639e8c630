// series_file.h — the benchmark drivers' series: a column of a text file
// tiled end to end to n points, with optional Gaussian noise, or a random walk.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace bench {

// Column col (0-based; fields split at blanks, tabs and commas) of every line
// of path that has one; empty when the file holds none.
inline std::vector<double> read_column(const char* path, int col) {
    std::ifstream in(path);
    std::string line, tok;
    std::vector<double> v;
    while (std::getline(in, line)) {
        for (char& c : line)
            if (c == ',' || c == '\t' || c == '\r') c = ' ';
        std::istringstream ls(line);
        for (int c = 0; ls >> tok; ++c)
            if (c == col) {
                v.push_back(std::strtod(tok.c_str(), nullptr));
                break;
            }
    }
    return v;
}

// v tiled end to end to n points (n = 0: v's length), plus Gaussian noise of
// noise·σ (σ of v; std::mt19937_64 seed 2), as bench/motifs.sh does for the ECG.
inline std::vector<double> tiled(const std::vector<double>& v, int64_t n, double noise) {
    if (n == 0) n = (int64_t)v.size();
    double mu = 0, q = 0;
    for (double a : v) mu += a;
    mu /= (double)v.size();
    for (double a : v) q += (a - mu) * (a - mu);
    std::mt19937_64 rng(2);
    std::normal_distribution<double> g(0, noise * std::sqrt(q / (double)v.size()));
    std::vector<double> x;
    for (int64_t i = 0; i < n; ++i) x.push_back(v[i % v.size()] + (noise > 0 ? g(rng) : 0.0));
    return x;
}

// A random walk of n points (Gaussian steps, std::mt19937_64 seed 1).
inline std::vector<double> random_walk(int64_t n) {
    std::mt19937_64 rng(1);
    std::normal_distribution<double> g(0, 1);
    std::vector<double> x;
    double s = 0;
    for (int64_t i = 0; i < n; ++i) x.push_back(s += g(rng));
    return x;
}

}  // namespace bench
