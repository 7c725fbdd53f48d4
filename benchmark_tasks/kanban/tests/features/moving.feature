Feature: Moving cards by dragging and with the keyboard, under a WIP limit

  Background:
    Given the app is open
    And the cards "Alpha, Beta, Gamma, Delta, Epsilon" were added

  @R4
  Scenario Outline: Dragging a card to another column
    When I drag the card "Beta" to the "<target>" column
    Then the "To do" column shows the cards "Alpha, Gamma, Delta, Epsilon"
    And the "<target>" column shows the cards "Beta"
    And the message is empty

    Examples:
      | target      |
      | In progress |
      | Done        |

  @R4
  Scenario: A dragged card goes to the end of the target column
    When I drag the card "Beta" to the "Done" column
    And I drag the card "Alpha" to the "Done" column
    Then the "Done" column shows the cards "Beta, Alpha"
    When I drag the card "Beta" to the "To do" column
    Then the columns show "Gamma, Delta, Epsilon, Beta", "" and "Alpha"

  @R4
  Scenario: Dropping a card on its own column changes nothing
    When I drag the card "Alpha" to the "To do" column
    Then the columns show "Alpha, Beta, Gamma, Delta, Epsilon", "" and ""

  @R4
  Scenario: Dropping a card outside every column changes nothing
    When I drag the card "Gamma" to the page title
    Then the columns show "Alpha, Beta, Gamma, Delta, Epsilon", "" and ""

  @R4
  Scenario: A card has the class dragging only while it is dragged
    When I press the mouse on the card "Alpha" and move it 40 pixels down
    Then the card "Alpha" has the class "dragging"
    When I release the mouse
    Then the card "Alpha" does not have the class "dragging"
    And the columns show "Alpha, Beta, Gamma, Delta, Epsilon", "" and ""

  @R5
  Scenario: A drop into a full In progress column is refused
    Given the cards "Alpha, Beta, Gamma" were moved to "In progress" with the keyboard
    When I drag the card "Delta" to the "In progress" column
    Then the message is "In progress is full (limit 3)."
    And the columns show "Delta, Epsilon", "Alpha, Beta, Gamma" and ""

  @R5
  Scenario: A keyboard move into a full In progress column is refused
    Given the cards "Alpha, Beta, Gamma" were moved to "In progress" with the keyboard
    When I click the card "Delta"
    And I press "ArrowRight"
    Then the message is "In progress is full (limit 3)."
    And the columns show "Delta, Epsilon", "Alpha, Beta, Gamma" and ""

  @R5
  Scenario: The third card may enter In progress
    Given the cards "Alpha, Beta" were moved to "In progress" with the keyboard
    When I drag the card "Gamma" to the "In progress" column
    Then the message is empty
    And the columns show "Delta, Epsilon", "Alpha, Beta, Gamma" and ""

  @R5
  Scenario: A card leaving In progress makes room for another
    Given the cards "Alpha, Beta, Gamma" were moved to "In progress" with the keyboard
    When I drag the card "Delta" to the "In progress" column
    Then the message is "In progress is full (limit 3)."
    When I drag the card "Alpha" to the "Done" column
    And I drag the card "Delta" to the "In progress" column
    Then the message is empty
    And the columns show "Epsilon", "Beta, Gamma, Delta" and "Alpha"

  @R5
  Scenario: Done has no limit
    When I drag the card "Alpha" to the "Done" column
    And I drag the card "Beta" to the "Done" column
    And I drag the card "Gamma" to the "Done" column
    And I drag the card "Delta" to the "Done" column
    Then the message is empty
    And the columns show "Epsilon", "" and "Alpha, Beta, Gamma, Delta"

  @R6
  Scenario: Clicking a card selects it and only it
    When I click the card "Beta"
    Then the card "Beta" is selected and has keyboard focus
    When I click the card "Delta"
    Then the card "Delta" is selected and has keyboard focus
    And the card "Beta" is not selected

  @R6
  Scenario Outline: Arrow keys move the selected card between columns
    When I click the card "Alpha"
    And I press "<keys>"
    Then the columns show "<todo>", "<doing>" and "<done>"
    And the card "Alpha" is selected and has keyboard focus

    Examples:
      | keys                              | todo                               | doing | done  |
      | ArrowRight                        | Beta, Gamma, Delta, Epsilon        | Alpha |       |
      | ArrowRight ArrowRight ArrowRight  | Beta, Gamma, Delta, Epsilon        |       | Alpha |
      | ArrowRight ArrowLeft              | Beta, Gamma, Delta, Epsilon, Alpha |       |       |

  @R6
  Scenario: ArrowLeft in To do does nothing
    When I click the card "Gamma"
    And I press "ArrowLeft"
    Then the columns show "Alpha, Beta, Gamma, Delta, Epsilon", "" and ""
    And the card "Gamma" is selected and has keyboard focus

  @R6
  Scenario: Delete removes the selected card
    When I click the card "Beta"
    And I press "Delete"
    Then the columns show "Alpha, Gamma, Delta, Epsilon", "" and ""

  @R6
  Scenario: Delete removes a card from Done
    Given the card "Epsilon" was moved to "Done" with the keyboard
    When I click the card "Epsilon"
    And I press "Delete"
    Then the columns show "Alpha, Beta, Gamma, Delta", "" and ""
