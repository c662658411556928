library(testthat)
library(cudag)
test_check("cudag")
