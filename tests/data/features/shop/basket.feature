@R1
Feature: The basket
  Background:
    Given the shop is open

  Scenario Outline: Adding an item
    When I add "<item>"
    Then the basket holds "<item>"
    Examples:
      | item  |
      | milk  |
      | bread |

  @R2 @smoke
  Scenario: An empty basket says so
    Then the basket reads "empty"

  Scenario: A b
    Then nothing

  Scenario: A-b
    Then nothing
