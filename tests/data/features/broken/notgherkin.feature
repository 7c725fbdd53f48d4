Feature: Not Gherkin
  @R1
  Scenario: Fine
    Then nothing
  this line is no step
