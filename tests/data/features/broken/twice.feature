Feature: Two scenarios of one name
  @R1
  Scenario: Same
    Then nothing

  @R1
  Scenario: Same
    Then nothing
