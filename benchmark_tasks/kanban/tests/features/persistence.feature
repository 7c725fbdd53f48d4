@R7
Feature: The board is saved in localStorage

  Scenario: Cards and their columns survive a reload
    Given the app is open
    And the cards "Alpha, Beta, Gamma" were added
    And the card "Alpha" was moved to "In progress" with the keyboard
    And the card "Beta" was moved to "Done" with the keyboard
    When I reload the page
    Then the columns show "Gamma", "Alpha" and "Beta"
    And the counts are "1", "1/3" and "1"

  Scenario: The board is stored as JSON under kanban-board
    Given the app is open
    And the cards "Alpha, Beta, Gamma" were added
    And the card "Beta" was moved to "In progress" with the keyboard
    Then the stored board is '{"todo": ["Alpha", "Gamma"], "doing": ["Beta"], "done": []}'

  Scenario: A deleted card stays deleted after a reload
    Given the app is open
    And the cards "Alpha, Beta" were added
    When I click the card "Alpha"
    And I press "Delete"
    And I reload the page
    Then the columns show "Beta", "" and ""

  Scenario: A stored board is shown when the page opens
    Given the stored board is '{"todo": ["One"], "doing": ["Two", "Three"], "done": ["Four"]}'
    When I open the app
    Then the columns show "One", "Two, Three" and "Four"
    And the counts are "1", "2/3" and "1"

  Scenario Outline: Unusable stored data gives an empty board
    Given the stored board is '<stored>'
    When I open the app
    Then the columns show "", "" and ""
    And the counts are "0", "0/3" and "0"
    And the page has no script errors

    Examples:
      | stored                                 |
      | not json                               |
      | {"todo": "x", "doing": [], "done": []} |
