Feature: Names that are task text, never code
  @R3
  Scenario: it's ''' """ \n \' ); import os #
    Then nothing
