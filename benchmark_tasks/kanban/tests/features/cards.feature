Feature: Adding cards, validating titles and counting cards

  Background:
    Given the app is open

  @R1
  Scenario Outline: Adding a valid title puts a card at the end of To do
    When I type <typed> and press Enter
    Then the "To do" column shows the cards "<card>"
    And the input is empty
    And the message is empty

    Examples:
      | typed                                      | card                                     |
      | "Buy milk"                                 | Buy milk                                 |
      | "  Write docs  "                           | Write docs                               |
      | "abcdefghijabcdefghijabcdefghijabcdefghij" | abcdefghijabcdefghijabcdefghijabcdefghij |

  @R1
  Scenario: Cards keep the order in which they were added
    When I type "Plan sprint" and press Enter
    And I type "Fix login bug" and press Enter
    And I type "Release v2" and press Enter
    Then the "To do" column shows the cards "Plan sprint, Fix login bug, Release v2"
    And the "In progress" column has no cards
    And the "Done" column has no cards

  @R1
  Scenario: Typing without pressing Enter adds nothing
    When I type "Buy milk" without pressing Enter
    Then the "To do" column has no cards
    And the input contains "Buy milk"

  @R2
  Scenario Outline: An invalid title is rejected with a message
    When I type <typed> and press Enter
    Then the message is "<message>"
    And the "To do" column has no cards
    And the input contains <typed>

    Examples:
      | typed                                       | message                              |
      | ""                                          | Title must not be empty.             |
      | "   "                                       | Title must not be empty.             |
      | "abcdefghijabcdefghijabcdefghijabcdefghijk" | Title must be at most 40 characters. |

  @R2
  Scenario: A duplicate title is rejected
    Given the cards "Buy milk, Walk dog" were added
    When I type "Buy milk" and press Enter
    Then the message is "A card named "Buy milk" already exists."
    And the "To do" column shows the cards "Buy milk, Walk dog"
    And the input contains "Buy milk"

  @R2
  Scenario: Duplicates are found ignoring letter case and outer spaces
    Given the cards "Buy milk" were added
    When I type "  buy MILK " and press Enter
    Then the message is "A card named "buy MILK" already exists."
    And the "To do" column shows the cards "Buy milk"

  @R2
  Scenario: A title used by a card in Done is a duplicate
    Given the cards "Ship it, Test it" were added
    And the card "Ship it" was moved to "Done" with the keyboard
    When I type "Ship it" and press Enter
    Then the message is "A card named "Ship it" already exists."
    And the columns show "Test it", "" and "Ship it"

  @R2
  Scenario: The message disappears after a card is added
    When I type "   " and press Enter
    Then the message is "Title must not be empty."
    When I type "Buy milk" and press Enter
    Then the message is empty
    And the "To do" column shows the cards "Buy milk"

  @R3
  Scenario: An empty board shows the column titles and zero counts
    Then the column titles are "To do", "In progress" and "Done"
    And the counts are "0", "0/3" and "0"

  @R3
  Scenario: Counts follow adding and moving cards
    Given the cards "One, Two, Three, Four" were added
    Then the counts are "4", "0/3" and "0"
    When the card "One" was moved to "In progress" with the keyboard
    And the card "Two" was moved to "Done" with the keyboard
    Then the counts are "2", "1/3" and "1"

  @R3
  Scenario: Counts go down when a card is deleted
    Given the cards "One, Two" were added
    When I click the card "Two"
    And I press "Delete"
    Then the counts are "1", "0/3" and "0"

  @R3
  Scenario: A rejected title leaves the counts unchanged
    Given the cards "One, Two" were added
    When I type "one" and press Enter
    Then the counts are "2", "0/3" and "0"
